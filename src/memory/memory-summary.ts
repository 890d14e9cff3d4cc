// Turns session-memory items into a short, bounded text for prompts: earlier questions, answers and working tools.
import type { MemoryItem } from './memory-item.js';

/** Default cap on the whole summary, so a long REPL session cannot crowd out the prompt. */
export const MAX_MEMORY_SUMMARY_CHARS = 2_000;
/** Earlier questions shown, most recent last. */
const MAX_SUMMARY_RUNS = 5;
/** Per-question and per-answer caps inside the summary. */
const MAX_SUMMARY_QUESTION_CHARS = 200;
const MAX_SUMMARY_ANSWER_CHARS = 300;

/** What an earlier run drew on, kept with its answer so later questions of the session inherit it (docs/security.md). */
export interface DataLabels {
  untrusted: boolean;
  private: boolean;
  /** Where from, in a person's words (pages, files, mails). */
  sources: string[];
  /** Servers whose untrusted content it drew on. */
  servers?: string[];
}

/** Sources kept with one answer. */
const MAX_LABEL_SOURCES = 10;

/** Labels as stored in an item's metadata, or null when it has none (or they are malformed). */
export function labelsOf(item: MemoryItem): DataLabels | null {
  const l = item.metadata.labels as Partial<DataLabels> | undefined;
  if (!l || typeof l !== 'object') return null;
  const sources = Array.isArray(l.sources) ? l.sources.filter((s): s is string => typeof s === 'string').slice(0, MAX_LABEL_SOURCES) : [];
  const servers = Array.isArray(l.servers) ? l.servers.filter((s): s is string => typeof s === 'string').slice(0, MAX_LABEL_SOURCES) : [];
  return { untrusted: l.untrusted === true, private: l.private === true, sources, servers };
}

/** What the session's earlier runs (all but `excludeRunId`) drew on, together: what a later planner reading them holds. */
export function earlierLabels(items: readonly MemoryItem[], excludeRunId?: string): DataLabels {
  const all: DataLabels = { untrusted: false, private: false, sources: [], servers: [] };
  for (const item of items) {
    if (item.metadata.run_id === excludeRunId) continue;
    const labels = labelsOf(item);
    if (!labels) continue;
    all.untrusted ||= labels.untrusted;
    all.private ||= labels.private;
    for (const s of labels.sources) if (all.sources.length < MAX_LABEL_SOURCES && !all.sources.includes(s)) all.sources.push(s);
    for (const s of labels.servers ?? []) if (!all.servers!.includes(s)) all.servers!.push(s);
  }
  return all;
}

/** What the summary says when there is nothing to remember. */
export const EMPTY_MEMORY_SUMMARY = 'None: this is the first question of the session.';

/** An earlier answer in strict mode when it drew on outside content. */
const WITHHELD_ANSWER = '(withheld in strict mode: it drew on text written outside Cortex-R)';

function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

/**
 * Summarises earlier runs (question → answer, or "no answer") and the tools that recently
 * succeeded. Items of `excludeRunId` (the run in progress) are left out: its own progress reaches
 * the prompt through the query and the retry feedback.
 */
export function summariseMemory({
  items,
  recentSuccesses,
  excludeRunId,
  maxChars = MAX_MEMORY_SUMMARY_CHARS,
  withholdUntrusted = false,
}: {
  items: readonly MemoryItem[];
  recentSuccesses: string[];
  excludeRunId?: string;
  maxChars?: number;
  /** Strict mode: an answer drawn on outside content is not shown, only said to exist. */
  withholdUntrusted?: boolean;
}): string {
  const runs = new Map<string, { question: string; answer?: string }>();
  for (const item of items) {
    const runId = typeof item.metadata.run_id === 'string' ? item.metadata.run_id : undefined;
    if (!runId || runId === excludeRunId) continue;
    // A run's first run_metadata item holds the question; later ones (gave up, cancelled) do not.
    if (item.type === 'run_metadata') {
      if (!runs.has(runId)) runs.set(runId, { question: item.text });
    }
    else if (item.type === 'final_answer' && runs.has(runId)) {
      runs.get(runId)!.answer = withholdUntrusted && labelsOf(item)?.untrusted ? WITHHELD_ANSWER : (item.final_answer ?? item.text);
    }
  }
  const runLines = [...runs.values()].slice(-MAX_SUMMARY_RUNS).map((run) => {
    const answer = run.answer === undefined ? '(no answer)' : clip(run.answer, MAX_SUMMARY_ANSWER_CHARS);
    return `- Q: ${clip(run.question, MAX_SUMMARY_QUESTION_CHARS)} → A: ${answer}`;
  });
  const toolsLine = recentSuccesses.length > 0 ? `Tools that worked recently: ${recentSuccesses.join(', ')}` : undefined;
  const compose = () =>
    [...(runLines.length > 0 ? ['Earlier questions in this session:', ...runLines] : []), ...(toolsLine ? [toolsLine] : [])].join('\n');
  let text = compose();
  if (text === '') return EMPTY_MEMORY_SUMMARY;
  // Over the cap, the oldest questions go first: the latest ones are the likeliest to matter.
  while (text.length > maxChars && runLines.length > 1) {
    runLines.shift();
    text = compose();
  }
  return text.length <= maxChars ? text : `${text.slice(0, Math.max(0, maxChars - 12))}\n[truncated]`;
}

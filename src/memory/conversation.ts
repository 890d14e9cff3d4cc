// A session's earlier turns as a follow-up's planner reads them: the latest in full within a budget, the older as the model's summary.
import { labelsOf, type DataLabels } from './data-labels.js';
import type { MemoryItem } from './memory-item.js';

/** Earlier turns' text a prompt carries by default, in characters (about 2,000 tokens); the profile's memory.conversation_chars. */
export const DEFAULT_CONVERSATION_CHARS = 8_000;
/** One turn's question and answer as shown, in characters; a longer one is cut with a mark. */
const MAX_TURN_QUESTION_CHARS = 1_000;
const MAX_TURN_ANSWER_CHARS = 3_000;
/** The `event` of the run_metadata item that holds a summary of earlier turns. */
export const SUMMARY_EVENT = 'conversation_summary';

/** One earlier question of the session and what came of it. */
export interface Turn {
  runId: string;
  question: string;
  /** The answer; null when the run gave up or was cancelled. */
  answer: string | null;
  labels: DataLabels | null;
}

/** The model's summary of the turns up to and including `throughRunId`. */
export interface TurnSummary {
  text: string;
  throughRunId: string;
  labels: DataLabels | null;
}

/** Every earlier run of the session, in order, but `excludeRunId` (the run in progress). */
export function turnsOf(items: readonly MemoryItem[], excludeRunId?: string): Turn[] {
  const turns = new Map<string, Turn>();
  for (const item of items) {
    const runId = typeof item.metadata.run_id === 'string' ? item.metadata.run_id : undefined;
    if (!runId || runId === excludeRunId) continue;
    // A run's first run_metadata item holds the question; later ones (gave up, cancelled) do not.
    if (item.type === 'run_metadata' && item.metadata.event !== SUMMARY_EVENT && !turns.has(runId)) turns.set(runId, { runId, question: item.text, answer: null, labels: null });
    else if (item.type === 'final_answer' && turns.has(runId)) Object.assign(turns.get(runId)!, { answer: item.final_answer ?? item.text, labels: labelsOf(item) });
  }
  return [...turns.values()];
}

/** The latest summary of earlier turns kept in the session, or null. */
export function latestSummary(items: readonly MemoryItem[]): TurnSummary | null {
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i]!;
    if (item.type === 'run_metadata' && item.metadata.event === SUMMARY_EVENT && typeof item.metadata.through_run_id === 'string') {
      return { text: item.text, throughRunId: item.metadata.through_run_id, labels: labelsOf(item) };
    }
  }
  return null;
}

function cut(text: string, max: number): string {
  const trimmed = text.trim();
  return trimmed.length <= max ? trimmed : `${trimmed.slice(0, max)}… [cut: ${trimmed.length - max} more characters]`;
}

/** One turn as the prompt shows it; in strict mode an answer drawn on outside content is withheld. */
export function turnText(turn: Turn, withholdUntrusted: boolean): string {
  const answer = turn.answer === null ? '(no answer)' : withholdUntrusted && turn.labels?.untrusted ? WITHHELD : cut(turn.answer, MAX_TURN_ANSWER_CHARS);
  return `Q: ${cut(turn.question, MAX_TURN_QUESTION_CHARS)}\nA: ${answer}`;
}

/**
 * Splits the turns after the latest summary into those shown in full (the newest that fit `budget`, at least the
 * last one) and the older ones that must be summarised first (compactConversation). Nothing is dropped unsaid.
 */
export function planConversation(turns: readonly Turn[], summary: TurnSummary | null, budget: number, withholdUntrusted = false): { shown: Turn[]; toSummarise: Turn[] } {
  const start = summary ? turns.findIndex((t) => t.runId === summary.throughRunId) + 1 : 0;
  const open = turns.slice(start);
  let used = summary ? summary.text.length : 0;
  let first = open.length;
  while (first > 0) {
    const size = turnText(open[first - 1]!, withholdUntrusted).length + 2;
    if (first < open.length && used + size > budget) break;
    used += size;
    first--;
  }
  return { shown: open.slice(first), toSummarise: open.slice(0, first) };
}

/** The conversation section of a prompt: the summary of older turns, then the newest turns in full. */
export function renderConversation(shown: readonly Turn[], summary: TurnSummary | null, withholdUntrusted: boolean, unsummarised = 0): string {
  const parts: string[] = [];
  if (summary) parts.push(`Summary of the earlier conversation:\n${withholdUntrusted && summary.labels?.untrusted ? WITHHELD : summary.text}`);
  if (unsummarised > 0) parts.push(`(${unsummarised} older question${unsummarised === 1 ? '' : 's'} of this session could not be summarised and ${unsummarised === 1 ? 'is' : 'are'} not shown.)`);
  if (shown.length > 0) parts.push(`Earlier questions in this session, oldest first:\n${shown.map((t) => turnText(t, withholdUntrusted)).join('\n\n')}`);
  return parts.join('\n\n');
}

const WITHHELD = '(withheld in strict mode: it drew on text written outside Cortex-R)';

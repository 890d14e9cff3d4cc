// A saved session read back for people: its questions, each with its answer or outcome and the plans that ran.
import { readFile, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { UsageError } from '../errors.js';
import { latestSummary } from './conversation.js';
import { parseSessionId, traceFileName } from './memory-item.js';
import { findSessionFile, readSessionFile } from './session-files.js';
import { sessionQuestions, type SessionQuestion } from './session-questions.js';

/** Cap on the trace read for a session's plans; a longer trace shows the plans found in this much. */
const MAX_TRACE_BYTES_READ = 20 * 2 ** 20;

export interface SessionView {
  id: string;
  /** ISO time the session started (from its id). */
  started: string;
  path: string;
  questions: SessionQuestion[];
  /** The model's summary of the older questions (what later questions see of them), when the session grew past its budget. */
  summary: { text: string; throughQuestion: number } | null;
}

/** The plans of each run in a trace file (missing or unreadable lines are skipped: the trace is a log). */
async function tracePlans(path: string): Promise<Map<string, SessionQuestion['plans']>> {
  const plans = new Map<string, SessionQuestion['plans']>();
  const text = await readFile(path, 'utf8').catch(() => '');
  for (const line of text.slice(0, MAX_TRACE_BYTES_READ).split('\n')) {
    if (!line.includes('"type":"plan"')) continue;
    try {
      const event = JSON.parse(line) as { type?: string; run_id?: unknown; step?: unknown; lifeline?: unknown; code?: unknown };
      if (event.type !== 'plan' || typeof event.run_id !== 'string' || typeof event.code !== 'string') continue;
      const list = plans.get(event.run_id) ?? [];
      list.push({ step: Number(event.step) || 0, lifeline: Number(event.lifeline) || 0, code: event.code });
      plans.set(event.run_id, list);
    } catch {
      // A line cut short by a crash: the others still show.
    }
  }
  return plans;
}

/** Where a session's files are. @throws UsageError for a malformed id or a session that does not exist. */
async function locate(baseDir: string, input: string): Promise<{ id: string; unixSeconds: number; path: string }> {
  const parsed = parseSessionId(input);
  if (!parsed) throw new UsageError(`"${input.slice(0, 80)}" is not a session id (expected e.g. 1718000000-a1b2c3; see \`cortex sessions\`)`);
  const path = await findSessionFile(baseDir, parsed);
  if (!path) throw new UsageError(`no session ${parsed.id} under ${baseDir} (see \`cortex sessions\`)`);
  return { ...parsed, path };
}

/** A session's questions, answers and plans. @throws UsageError (unknown id), MemoryError (corrupt file). */
export async function readSessionView(baseDir: string, input: string): Promise<SessionView> {
  const { id, unixSeconds, path } = await locate(baseDir, input);
  const items = await readSessionFile(path);
  const questions = sessionQuestions(items);
  const plans = await tracePlans(join(dirname(path), traceFileName(id)));
  for (const question of questions) question.plans = plans.get(question.run_id) ?? [];
  const latest = latestSummary(items);
  const summary = latest ? { text: latest.text, throughQuestion: questions.findIndex((q) => q.run_id === latest.throughRunId) + 1 } : null;
  return { id, started: new Date(unixSeconds * 1000).toISOString(), path, questions, summary };
}

/** Deletes a session's memory file and trace. Returns the paths removed. @throws UsageError (unknown id). */
export async function removeSession(baseDir: string, input: string): Promise<string[]> {
  const { id, path } = await locate(baseDir, input);
  const trace = join(dirname(path), traceFileName(id));
  await rm(path, { force: true });
  await rm(trace, { force: true });
  return [path, trace];
}

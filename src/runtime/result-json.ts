// The object `cortex ask --json` prints, shared by the CLI, the HTTP API and `cortex mcp`: the same keys on every path.
import type { AgentRunResult } from '../agent/types.js';
import type { SpendReport } from '../budget/budget-keeper.js';

/**
 * The `--json` object of a question. Every key is present whatever happened: `reason` is null when answered,
 * `error` is null unless status is 'error' (the run stopped on our side or the environment's, e.g. no LLM),
 * and `session_id` is null only when the run stopped before a session existed.
 */
export interface ResultJson {
  status: AgentRunResult['status'] | 'error';
  answer: string | null;
  session_id: string | null;
  steps: AgentRunResult['steps'];
  usage: AgentRunResult['usage'];
  timings: AgentRunResult['timings'];
  reason: string | null;
  /** Where an answer drawn on web pages, mail or documents came from, and that such text can mislead the model. */
  caution: string | null;
  /** What was sent or written where after the question read outside content or private data ("office.send_mail → alice@example.org"). */
  sent: string[];
  /** What the question and its session spent (tokens, US dollars where the model's price is known) and the budget limits. */
  spend: SpendReport | null;
  error: { code: string; message: string } | null;
}

/** The `--json` object of a run (what the SSE `result` event and `Accept: application/json` also send). */
export function resultJson(result: AgentRunResult): ResultJson {
  const { status, answer, session_id, steps, usage, timings, reason, caution, sent } = result;
  return { status, answer, session_id, steps, usage, timings, reason, caution, sent, spend: result.spend ?? null, error: null };
}

/** What is known of a run that stopped with an error: its session, tokens and time so far. */
export interface PartialRun {
  session_id: string | null;
  usage: AgentRunResult['usage'];
  timings: AgentRunResult['timings'];
}

/** The `--json` object of a run that stopped with an error instead of a result. */
export function errorResultJson(error: { code: string; message: string }, run: PartialRun): ResultJson {
  return { status: 'error', answer: null, session_id: run.session_id, steps: [], usage: run.usage, timings: run.timings, reason: error.message, caution: null, sent: [], spend: null, error };
}

// How a question's result is shown: the answer on stdout (or the one JSON object), caution, what was sent, and one line of figures.
import type { AgentRunResult } from '../agent/types.js';
import { plural, tokenFigures } from '../runtime/describe-event.js';
import { resultJson } from '../runtime/result-json.js';
import type { Output } from './output.js';

/** The answer on stdout (or the whole result with --json); why it gave up on stderr. */
export function printResult(result: AgentRunResult, out: Output): void {
  if (out.json) {
    out.result(resultJson(result));
    return;
  }
  if (result.status === 'answered') out.line(out.bold(result.answer ?? ''));
  else out.error(out.err.red(`${result.status === 'cancelled' ? 'Cancelled' : 'Gave up'}: ${result.reason ?? ''}`));
  // Shown whatever the flags: it says how far to trust the answer above.
  if (result.caution) out.error(out.err.dim(result.caution));
  for (const sent of result.sent) out.error(out.err.dim(`sent: ${sent}`));
  out.info(out.err.dim(runSummary(result)));
}

/** One line of figures under an answer: steps and retries, tokens, time, and the session to continue. */
export function runSummary(result: AgentRunResult): string {
  const steps = new Set(result.steps.map((s) => s.step)).size;
  const retries = result.steps.length - steps;
  return [
    `${plural(steps, 'step')}${retries ? `, ${plural(retries, 'retry', 'retries')}` : ''}`,
    tokenFigures(result.usage.prompt_tokens, result.usage.completion_tokens),
    ...(result.spend?.cost_usd ? [`about $${result.spend.cost_usd.toFixed(4)}`] : []),
    `${(result.timings.total_ms / 1000).toFixed(1)} s`,
    `session ${result.session_id}`,
  ].join(' · ');
}

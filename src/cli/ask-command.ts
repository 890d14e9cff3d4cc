// `cortex ask "…"`: one question, answered through the agent loop; the answer (or JSON) on stdout.
import type { AgentRunResult } from '../agent/types.js';
import type { LoadedConfig } from '../config/load-config.js';
import { EXIT } from './exit-codes.js';
import type { Output } from './output.js';
import { createProgress } from './progress.js';
import { resultJson } from './result-json.js';
import { Runtime, type RuntimeOptions } from './runtime.js';
import { terminalAsk } from './terminal-ask.js';

export async function askCommand(config: LoadedConfig, question: string, options: RuntimeOptions, out: Output): Promise<number> {
  const ask = terminalAsk(out);
  const runtime = await Runtime.start(config, options, out, ask ? { ask } : {});
  try {
    const progress = createProgress(out);
    const result = await runtime.ask(question, { onEvent: progress.onEvent });
    progress.done();
    printResult(result, out);
    return result.status === 'answered' ? EXIT.ok : EXIT.gaveUp;
  } finally {
    await runtime.close();
  }
}

/** The answer on stdout (or the whole result with --json); why it gave up on stderr. */
export function printResult(result: AgentRunResult, out: Output): void {
  if (out.json) {
    out.result(resultJson(result));
    return;
  }
  if (result.status === 'answered') out.line(out.bold(result.answer ?? ''));
  else out.error(out.err.red(`${result.status === 'cancelled' ? 'Cancelled' : 'Gave up'}: ${result.reason ?? ''}`));
  out.info(out.err.dim(runSummary(result)));
}

/** One line of figures under an answer: steps and retries, tokens, time, and the session to continue. */
export function runSummary(result: AgentRunResult): string {
  const steps = new Set(result.steps.map((s) => s.step)).size;
  const retries = result.steps.length - steps;
  const tokens = result.usage.prompt_tokens + result.usage.completion_tokens;
  return [
    `${steps} step${steps === 1 ? '' : 's'}${retries ? `, ${retries} retr${retries === 1 ? 'y' : 'ies'}` : ''}`,
    `${tokens.toLocaleString('en-US')} tokens (${result.usage.prompt_tokens.toLocaleString('en-US')} in, ${result.usage.completion_tokens.toLocaleString('en-US')} out)`,
    `${(result.timings.total_ms / 1000).toFixed(1)} s`,
    `session ${result.session_id}`,
  ].join(' · ');
}

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
  if (result.status === 'answered') out.line(result.answer ?? '');
  else out.error(`${result.status === 'cancelled' ? 'Cancelled' : 'Gave up'}: ${result.reason ?? ''}`);
  out.info(out.dim(`session ${result.session_id} · ${result.steps.length} attempt(s) · ${result.timings.total_ms} ms`));
}

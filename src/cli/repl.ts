// `cortex` with no command: a REPL. One session until `new`; Ctrl-C cancels the current question; Ctrl-D or `exit` quits.
import { createInterface } from 'node:readline';
import type { LoadedConfig } from '../config/load-config.js';
import { EXIT } from './exit-codes.js';
import type { Output } from './output.js';
import { printResult } from './ask-command.js';
import { createProgress } from './progress.js';
import { Runtime, type RuntimeOptions } from './runtime.js';

const HELP = 'Ask a question, or: new (start a new session), exit (or Ctrl-D) to quit. Ctrl-C cancels a running question.';

export async function replCommand(config: LoadedConfig, options: RuntimeOptions, out: Output): Promise<number> {
  const runtime = await Runtime.start(config, options, out);
  const rl = createInterface({ input: process.stdin, output: process.stdout, prompt: 'cortex> ', terminal: Boolean(process.stdin.isTTY) });
  let current: AbortController | undefined;
  const interrupt = () => {
    if (current) {
      current.abort();
    } else {
      out.error('\n(type exit or press Ctrl-D to quit)');
      rl.prompt();
    }
  };
  rl.on('SIGINT', interrupt);
  process.on('SIGINT', interrupt);
  out.info(`Cortex-R · session ${runtime.memory.id} · ${HELP}`);
  try {
    rl.prompt();
    for await (const raw of rl) {
      const line = raw.trim();
      if (line === 'exit' || line === 'quit') break;
      if (line === 'new') {
        runtime.newSession();
        out.info(`new session ${runtime.memory.id}`);
      } else if (line === 'help') {
        out.info(HELP);
      } else if (line) {
        current = new AbortController();
        const progress = createProgress(out);
        const result = await runtime.ask(line, { onEvent: progress.onEvent, signal: current.signal });
        progress.done();
        current = undefined;
        printResult(result, out);
      }
      rl.prompt();
    }
    return EXIT.ok;
  } finally {
    process.off('SIGINT', interrupt);
    rl.close();
    await runtime.close();
  }
}

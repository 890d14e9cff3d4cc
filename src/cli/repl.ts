// `cortex` with no command: a REPL. One session until `new`; Ctrl-C cancels the current question; Ctrl-D or `exit` quits.
import { createInterface } from 'node:readline';
import type { LoadedConfig } from '../config/load-config.js';
import type { AskUser } from '../mcp/approval-gate.js';
import { isPromptLine, promptLine } from '../mcp/prompt-line.js';
import { EXIT } from './exit-codes.js';
import type { Output } from './output.js';
import { printResult } from './ask-command.js';
import { createProgress } from './progress.js';
import { Runtime, type RuntimeOptions } from './runtime.js';
import { clearStatus } from './terminal-ask.js';

const HELP = 'Ask a question, or: new (start a new session), /prompt (a server\'s prompts), exit (or Ctrl-D) to quit. Ctrl-C cancels a running question.';
const PROMPT = 'cortex> ';
/** A line that answers an approval question rather than asking one. */
const APPROVAL_ANSWER = /^(y|yes|n|no|a|always)$/i;

export async function replCommand(config: LoadedConfig, options: RuntimeOptions, out: Output): Promise<number> {
  const rl = createInterface({ input: process.stdin, output: process.stdout, prompt: PROMPT, terminal: Boolean(process.stdin.isTTY) });
  // Questions and approval answers come from the same lines, read one at a time in order. A read left
  // waiting by a cancelled approval question is handed to the next reader, so no line is lost.
  const lines = rl[Symbol.asyncIterator]();
  let leftover: Promise<IteratorResult<string>> | undefined;
  const nextLine = () => {
    const read = leftover ?? lines.next();
    leftover = undefined;
    return read;
  };
  /** True while the next line is the late answer to an approval question whose run already ended. */
  let lateAnswer = false;
  let current: AbortController | undefined;
  const ask: AskUser = async (question, signal) => {
    const cancelled = [signal, current?.signal].filter((s): s is AbortSignal => s !== undefined);
    if (cancelled.some((s) => s.aborted)) return null;
    clearStatus(out);
    rl.setPrompt(question);
    rl.prompt();
    rl.setPrompt(PROMPT);
    const read = nextLine();
    let onAbort = () => undefined as void;
    const aborted = new Promise<null>((resolve) => {
      onAbort = () => resolve(null);
      for (const s of cancelled) s.addEventListener('abort', onAbort, { once: true });
    });
    const answer = await Promise.race([read, aborted]);
    for (const s of cancelled) s.removeEventListener('abort', onAbort);
    if (answer === null) {
      out.error('\n(the run ended before an answer: the call was not run)');
      leftover = read;
      lateAnswer = true;
      return null;
    }
    return answer.done ? null : answer.value;
  };

  let runtime: Runtime;
  try {
    runtime = await Runtime.start(config, options, out, { ask });
  } catch (err) {
    rl.close();
    throw err;
  }
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
    // Bounded by the input: each turn consumes a line, and the iterator ends with it.
    for (;;) {
      const next = await nextLine();
      if (next.done) break;
      const line = next.value.trim();
      const late = lateAnswer;
      lateAnswer = false;
      if (line === 'exit' || line === 'quit') break;
      if (late && APPROVAL_ANSWER.test(line)) {
        out.error('(that answer came after its run ended; nothing was run)');
      } else if (line === 'new') {
        runtime.newSession();
        out.info(`new session ${runtime.memory.id}`);
      } else if (line === 'help') {
        out.info(HELP);
      } else if (line) {
        // `/prompt NAME …`: a server's MCP prompt becomes the question (or a listing is shown).
        const fromPrompt = isPromptLine(line) ? await promptLine(runtime.mcp, line) : { question: line };
        if ('message' in fromPrompt) {
          out.info(fromPrompt.message);
          rl.prompt();
          continue;
        }
        current = new AbortController();
        const progress = createProgress(out);
        const result = await runtime.ask(fromPrompt.question, { onEvent: progress.onEvent, signal: current.signal });
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

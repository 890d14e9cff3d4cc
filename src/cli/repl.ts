// `cortex` with no command: a REPL. One session until /new; a model failure is shown and the REPL goes on;
// Ctrl-C cancels the current question or clears the line; Ctrl-R searches the history; Ctrl-D or /exit quits.
import { terminalInteraction } from './terminal-elicit.js';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { LoadedConfig } from '../config/load-config.js';
import { errorMessage, LlmUnavailableError } from '../errors.js';
import { checkTextModel } from '../llm/check-model.js';
import type { AskUser } from '../policy/approval-gate.js';
import { promptLine } from './prompt-line.js';
import { printResult } from './print-result.js';
import { EXIT } from './exit-codes.js';
import type { Output } from './output.js';
import { attachHistorySearch } from './history-search.js';
import type { PendingLlm } from '../runtime/pending-llm.js';
import { createProgress } from './progress.js';
import { REPL_HELP, runReplCommand, SessionStats } from './repl-commands.js';
import { addHistoryEntry, loadHistory, saveHistory } from './repl-history.js';
import { MessageAssembler, readInput } from './repl-input.js';
import { LineQueue } from './repl-line-queue.js';
import { Runtime, type RuntimeOptions } from '../runtime/runtime.js';
import { withProgressHeld } from './screen-hold.js';
import { clearStatus } from './terminal-ask.js';

const PROMPT = 'cortex> ';
const CONTINUE_PROMPT = '   ...> ';
/** A line that answers an approval question rather than asking one. */
const APPROVAL_ANSWER = /^(y|yes|n|no|a|always)$/i;
/** Shown at start when no model is reachable: what works meanwhile. How to set one up was printed just before. */
const NO_MODEL_HELP =
  'No model is reachable, so questions cannot be answered yet. Set one up as above (it is picked up at the next question), ' +
  'or /model lists what is available; /sessions and /help work meanwhile.';
export async function replCommand(config: LoadedConfig, options: RuntimeOptions, out: Output): Promise<number> {
  const historyFile = join(config.paths.cache, 'repl-history');
  const terminal = Boolean(process.stdin.isTTY);
  const rl = createInterface({
    input: process.stdin,
    output: process.stdout,
    prompt: PROMPT,
    terminal,
    history: terminal ? await loadHistory(historyFile) : [],
    // readline would add every line it reads; the REPL adds whole messages itself (not answers to its questions).
    historySize: 0,
  });
  const history = (rl as unknown as { history: string[] }).history;
  const assembler = new MessageAssembler();
  // Bracketed paste: the terminal marks a paste, so its lines become one message.
  let pasting = false;
  const onKey = (_s: string, key?: { name?: string }) => {
    if (key?.name === 'paste-start') pasting = true;
    else if (key?.name === 'paste-end') pasting = false;
  };
  if (terminal) {
    attachHistorySearch(rl);
    process.stdin.on('keypress', onKey);
    process.stdout.write('\x1b[?2004h');
  }
  // Questions and approval answers come from the same lines, read one at a time in order.
  const lines = new LineQueue();
  rl.on('line', (text) => lines.push({ text, pasted: pasting }));
  rl.on('close', () => lines.end());
  /** True while the next line is the late answer to an approval question whose run already ended. */
  let lateAnswer = false;
  let current: AbortController | undefined;
  // While the person is asked, the progress line stays away (screen-hold.ts).
  const ask: AskUser = (question, signal) => withProgressHeld(() => askNow(question, signal));
  const askNow: AskUser = async (question, signal) => {
    const cancelled = [signal, current?.signal].filter((s): s is AbortSignal => s !== undefined);
    if (cancelled.some((s) => s.aborted)) return null;
    clearStatus(out);
    // Once the input has ended (piped input used up), readline refuses prompts (Node 24 throws): the queued lines still count.
    if (!lines.closed) {
      rl.setPrompt(question);
      rl.prompt();
      rl.setPrompt(PROMPT);
    } else if (lines.size === 0) {
      return null;
    } else {
      process.stdout.write(question);
    }
    try {
      return (await lines.next(AbortSignal.any(cancelled)))?.text ?? null;
    } catch {
      // The run ended (or was cancelled) first; the answer, if it comes, is the next line read.
      out.error('\n(the run ended before an answer: the call was not run)');
      lateAnswer = true;
      return null;
    }
  };

  let runtime: Runtime;
  try {
    // Without any model the REPL still opens: /model, /sessions and /help work, and a question says how to set one up.
    runtime = await Runtime.start(config, { ...options, startWithoutLlm: true }, out, terminalInteraction(ask));
  } catch (err) {
    rl.close();
    throw err;
  }
  const prompt = () => {
    if (lines.closed) return;
    rl.setPrompt(assembler.continuing ? CONTINUE_PROMPT : PROMPT);
    rl.prompt();
  };
  const interrupt = () => {
    if (current) {
      current.abort();
      return;
    }
    if (lines.closed) return;
    // Ctrl-C at the prompt clears what was typed (and a message being continued); on an empty line it says how to quit.
    const typed = rl.line.length > 0 || assembler.continuing;
    rl.write(null, { ctrl: true, name: 'e' });
    rl.write(null, { ctrl: true, name: 'u' });
    assembler.clear();
    process.stdout.write('\n');
    if (!typed) out.error('(type /exit or press Ctrl-D to quit)');
    prompt();
  };
  rl.on('SIGINT', interrupt);
  process.on('SIGINT', interrupt);
  if (runtime.llm.provider === 'none') {
    out.info(`Cortex-R · no model · session ${runtime.memory.id} · /help for commands`);
    out.error(NO_MODEL_HELP);
  } else {
    out.info(`Cortex-R · ${runtime.llm.provider} ${runtime.llm.model} · session ${runtime.memory.id} · /help for commands`);
    await warnIfModelMissing(runtime, out);
  }
  let stats = new SessionStats();
  const context = { runtime, config, out, memoryDir: config.paths.memory, skillsDir: config.paths.skills, get stats() { return stats; }, resetStats: () => { stats = new SessionStats(); }, checkModel: () => warnIfModelMissing(runtime, out) };
  try {
    prompt();
    // Bounded by the input: each turn consumes a line, and the iterator ends with it.
    for (;;) {
      const next = await lines.next();
      if (next === null) break;
      const late = lateAnswer;
      lateAnswer = false;
      if (late && APPROVAL_ANSWER.test(next.text.trim())) {
        out.error('(that answer came after its run ended; nothing was run)');
        prompt();
        continue;
      }
      const message = assembler.take(next.text, next.pasted);
      if (message === null) {
        if (!pasting) prompt();
        continue;
      }
      if (terminal) addHistoryEntry(history, message);
      let input = readInput(message);
      // `/prompt NAME arg=value`: a server's MCP prompt becomes the question (`/prompt` alone lists them).
      if (input.kind === 'command' && (input.name === 'prompt' || input.name === 'prompts')) {
        const fromPrompt = await promptLine(runtime.mcp, `/prompt ${input.arg}`);
        if ('message' in fromPrompt) out.info(fromPrompt.message);
        input = 'message' in fromPrompt ? { kind: 'empty' } : { kind: 'question', text: fromPrompt.question };
      }
      if (input.kind === 'command') {
        if ((await runReplCommand(input.name, input.arg, context)) === 'exit') break;
      } else if (input.kind === 'question' && !(await modelReady(runtime, out))) {
        // No model yet: said in plain words (modelReady), and the question is not run.
      } else if (input.kind === 'question') {
        current = new AbortController();
        const progress = createProgress(out);
        try {
          const result = await runtime.ask(input.text, { onEvent: progress.onEvent, signal: current.signal });
          progress.done();
          stats.add(result);
          printResult(result, out);
        } catch (err) {
          // The model (or its server) failed: say so and stay, with the session as it was.
          progress.done();
          stats.addFailure();
          out.error(out.err.red(`error: ${errorMessage(err)}`));
          out.error(out.err.dim('The session is kept: ask again, switch with /model NAME, or /exit.'));
        } finally {
          current = undefined;
        }
      }
      prompt();
    }
    return EXIT.ok;
  } finally {
    process.off('SIGINT', interrupt);
    if (terminal) {
      process.stdin.off('keypress', onKey);
      // Bracketed paste off, and the shell's prompt on a line of its own after Ctrl-D.
      process.stdout.write('\x1b[?2004l\n');
      await saveHistory(historyFile, history).catch(() => undefined);
    }
    rl.close();
    await runtime.close();
  }
}

/**
 * True when a model can answer. With none at start, each question first tries again (a key set or Ollama started
 * since); when there is still none, says so with how to set one up, instead of running the question.
 */
async function modelReady(runtime: Runtime, out: Output): Promise<boolean> {
  const pending = runtime.llm as Partial<PendingLlm>;
  if (runtime.llm.provider !== 'none' || !pending.ready) return true;
  try {
    await pending.ready();
    return true;
  } catch (err) {
    const advice = err instanceof LlmUnavailableError && err.cause instanceof Error ? err.cause.message : errorMessage(err);
    out.error(out.err.red('No model is set up, so the question was not asked.'));
    out.error(advice);
    return false;
  }
}

/** Says at start-up when the provider does not serve the model (not pulled, renamed, shut down), rather than on the first question. */
export async function warnIfModelMissing(runtime: Runtime, out: Output): Promise<void> {
  const check = await checkTextModel(runtime.llm);
  if (check.ok) return;
  out.error(out.err.red(`warning: ${check.error.message}`));
  out.error(out.err.dim('Questions will fail until this is fixed; /model NAME switches to another model.'));
}

export { REPL_HELP };

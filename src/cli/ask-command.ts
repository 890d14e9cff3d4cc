// `cortex ask "…"`: one question, answered through the agent loop; the answer (or JSON) on stdout.
import { terminalInteraction } from './terminal-elicit.js';
import type { AgentEvent, AgentRunResult } from '../agent/types.js';
import type { LoadedConfig } from '../config/load-config.js';
import { CortexError, errorMessage, UsageError } from '../errors.js';
import { recordedQuestion } from '../llm/recording.js';
import { listSessions } from '../memory/session-files.js';
import { EXIT, exitCodeFor } from './exit-codes.js';
import type { Output } from './output.js';
import { createProgress } from './progress.js';
import { errorResultJson } from '../runtime/result-json.js';
import { printResult } from './print-result.js';
import { Runtime, type RuntimeOptions } from '../runtime/runtime.js';
import { MAX_PIPED_CHARS, readStdinText, stdinIsPiped, STDIN_READ_TIMEOUT_MS, STDIN_SILENT_WAIT_MS } from './stdin-text.js';
import { terminalAsk } from './terminal-ask.js';

export interface AskCommandOptions extends RuntimeOptions {
  /** `-c/--continue`: answer in the latest saved session. */
  continueLatest?: boolean;
}

/** Exit status after a second Ctrl-C: the conventional 128 + SIGINT. */
const EXIT_INTERRUPTED = 130;

export async function askCommand(config: LoadedConfig, words: string[], options: AskCommandOptions, out: Output): Promise<number> {
  const startedAt = performance.now();
  const usage = { prompt_tokens: 0, completion_tokens: 0 };
  let sessionId: string | null = null;
  // Ctrl-C cancels the question (the result, or --json's `cancelled` object, is still printed); a second one quits.
  const cancel = new AbortController();
  const onSigint = () => {
    if (cancel.signal.aborted) process.exit(EXIT_INTERRUPTED);
    cancel.abort();
  };
  process.on('SIGINT', onSigint);
  let runtime: Runtime | undefined;
  try {
    const { continueLatest, ...given } = options;
    const start = async (runtimeOptions: RuntimeOptions) => {
      const session = continueLatest ? await latestSession(config, out) : undefined;
      const ask = terminalAsk(out);
      return Runtime.start(config, { ...runtimeOptions, lazyServers: true, ...(session ? { session } : {}) }, out, ask ? terminalInteraction(ask) : {});
    };
    // Reading stdin (a silent one gets a moment) and starting the runtime go on together, unless the question itself
    // is needed first: it is on stdin (`ask -`), or a recording is made or checked against it.
    const asked = questionOf(words, out);
    const early = isStdinQuestion(words) || given.record || given.replay ? undefined : start(given);
    // Its failure is reported once the question is read (below), not as an unhandled rejection meanwhile.
    early?.catch(() => undefined);
    let question: string, attached: string | undefined;
    try {
      ({ question, attached } = await asked);
    } catch (err) {
      runtime = await early?.catch(() => undefined);
      throw err;
    }
    if (given.replay && !given.record) checkReplayMatches(given.replay, question);
    runtime = await (early ?? start(given.record ? { ...given, recordQuestion: question } : given));
    sessionId = runtime.memory.id;
    const progress = createProgress(out);
    const onEvent = (event: AgentEvent) => {
      if (event.type === 'llm_end') {
        usage.prompt_tokens += event.promptTokens;
        usage.completion_tokens += event.completionTokens;
      }
      progress.onEvent(event);
    };
    const result = await runtime.ask(question, { onEvent, signal: cancel.signal, ...(attached ? { attached } : {}) });
    progress.done();
    printResult(result, out);
    // An interrupt ends with 130, as shells report one (128 + SIGINT), after the result or --json's `cancelled` object.
    return result.status === 'answered' ? EXIT.ok : result.status === 'cancelled' ? EXIT_INTERRUPTED : EXIT.gaveUp;
  } catch (err) {
    // --json gets the same object on every path; the message still goes to stderr.
    if (!out.json) throw err;
    const total_ms = Math.round(performance.now() - startedAt);
    const code = err instanceof CortexError ? err.code : 'internal';
    out.result(errorResultJson({ code, message: errorMessage(err) }, { session_id: sessionId, usage, timings: { total_ms, llm_ms: 0, sandbox_ms: 0 } }));
    out.error(`cortex: ${errorMessage(err)}`);
    return exitCodeFor(err);
  } finally {
    process.off('SIGINT', onSigint);
    await runtime?.close();
  }
}

/** `cortex ask -`: the question itself is on stdin. */
function isStdinQuestion(words: string[]): boolean {
  return words.length === 1 && words[0] === '-';
}

/**
 * The question: the words given, or stdin for `ask -`. Text piped to stdin otherwise comes with the question as
 * `attached`, at most MAX_PIPED_CHARS (the user is told when it was cut): the model reads it, but it names no place the
 * data may go (it may be a forwarded mail). @throws UsageError
 */
export async function questionOf(words: string[], out: Output): Promise<{ question: string; attached?: string }> {
  const fromStdin = isStdinQuestion(words);
  if (!fromStdin && !stdinIsPiped()) return { question: words.join(' ') };
  if (fromStdin && process.stdin.isTTY) throw new UsageError('`cortex ask -` reads the question from stdin, but stdin is a terminal: pipe the question in');
  // The question itself on stdin is worth the whole wait; context next to a question only a moment of silence.
  const piped = await readStdinText(fromStdin ? { firstDataWaitMs: STDIN_READ_TIMEOUT_MS } : {});
  if (piped.silent && !fromStdin) {
    out.info(out.dim(`(stdin sent nothing within ${STDIN_SILENT_WAIT_MS / 1000} s, so the question goes without it)`));
    return { question: words.join(' ') };
  }
  if (piped.cutChars > 0) out.error(`note: only the first ${MAX_PIPED_CHARS} characters of the piped text are used (${piped.cutChars} more were left out)`);
  if (piped.timedOut) out.error(`note: stdin was still open after ${STDIN_READ_TIMEOUT_MS / 1000} s; using what had arrived`);
  const text = piped.text.trim();
  if (fromStdin) {
    if (!text) throw new UsageError('`cortex ask -`: stdin was empty, so there is no question');
    return { question: text };
  }
  if (!text) return { question: words.join(' ') };
  out.info(out.dim(`(with ${text.length} characters of piped text)`));
  return { question: words.join(' '), attached: text };
}

/** Characters of each question shown when a recording does not match. */
const QUESTION_SHOWN_CHARS = 60;

/**
 * Refuses `--replay FILE` for a question other than the one recorded (replies to another question would be given as
 * this one's answer). Older recordings name no question and are replayed as they are. @throws UsageError
 */
function checkReplayMatches(file: string, question: string): void {
  const recorded = recordedQuestion(file);
  const same = (text: string) => text.trim().replace(/\s+/g, ' ');
  if (recorded === undefined || same(recorded) === same(question)) return;
  const brief = (text: string) => {
    const flat = same(text);
    return JSON.stringify(flat.length > QUESTION_SHOWN_CHARS ? `${flat.slice(0, QUESTION_SHOWN_CHARS - 1)}…` : flat);
  };
  throw new UsageError(`the recording ${file} does not match this question: it was made for ${brief(recorded)}, not ${brief(question)}; ask that question to replay it, or record this one with --record`);
}

/** The id of the newest saved session, for `ask -c`; undefined (a new session, said so) when there is none. */
async function latestSession(config: LoadedConfig, out: Output): Promise<string | undefined> {
  const [latest] = await listSessions(config.paths.memory, { limit: 1 });
  if (!latest) {
    out.info('No saved session to continue; starting a new one.');
    return undefined;
  }
  return latest.id;
}

// Text given to `cortex ask` on stdin: read once, bounded, from any non-terminal source (pipe, file, socket).
import { fstatSync } from 'node:fs';

/** Piped text kept as the question's context, in characters; the user is told when more was cut. */
export const MAX_PIPED_CHARS = 100_000;
/** Bound on waiting for the writer of a pipe to finish; what arrived by then is used (and the user told). */
export const STDIN_READ_TIMEOUT_MS = 60_000;
/**
 * How long a question given as words waits for stdin to say anything (data or end). A program that spawns
 * `cortex ask "…"` with its stdin left open and silent must not hold the question up longer than this moment;
 * a pipe or file with text sends its first bytes well within it.
 */
export const STDIN_SILENT_WAIT_MS = 1_000;

export interface StdinText {
  text: string;
  /** Characters dropped past MAX_PIPED_CHARS (0 when none). */
  cutChars: number;
  /** True when the writer had not finished within the read timeout. */
  timedOut: boolean;
  /** True when nothing at all (neither data nor end) came within the first wait; stdin was then left alone. */
  silent: boolean;
}

/**
 * True when stdin may carry text a user or a program gave: a pipe, a socket (Node's `spawn` with stdio 'pipe'
 * makes one) or a non-empty regular file. A terminal and /dev/null are not read.
 */
export function stdinIsPiped(fd = 0): boolean {
  try {
    const stat = fstatSync(fd);
    return stat.isFIFO() || stat.isSocket() || (stat.isFile() && stat.size > 0);
  } catch {
    return false;
  }
}

export interface ReadStdinOptions {
  stream?: NodeJS.ReadableStream;
  /** Longest wait for the first data or the end; past it stdin is left unread. Default: STDIN_SILENT_WAIT_MS. */
  firstDataWaitMs?: number;
  /** Longest wait for the whole text once it has started. Default: STDIN_READ_TIMEOUT_MS. */
  timeoutMs?: number;
}

/** Reads stdin to its end, keeping at most MAX_PIPED_CHARS characters; gives up early on a silent stdin. */
export async function readStdinText({
  stream = process.stdin,
  firstDataWaitMs = STDIN_SILENT_WAIT_MS,
  timeoutMs = STDIN_READ_TIMEOUT_MS,
}: ReadStdinOptions = {}): Promise<StdinText> {
  let text = '';
  let cutChars = 0;
  let timedOut = false;
  let silent = false;
  let started = false;
  stream.setEncoding('utf8');
  await new Promise<void>((resolve) => {
    const firstWait = setTimeout(() => {
      silent = true;
      finish();
    }, Math.min(firstDataWaitMs, timeoutMs));
    const whole = setTimeout(() => {
      timedOut = true;
      finish();
    }, timeoutMs);
    const onData = (chunk: string) => {
      if (!started) {
        started = true;
        clearTimeout(firstWait);
      }
      const room = MAX_PIPED_CHARS - text.length;
      text += chunk.slice(0, Math.max(0, room));
      cutChars += Math.max(0, chunk.length - room);
    };
    function finish() {
      clearTimeout(firstWait);
      clearTimeout(whole);
      stream.off('data', onData);
      stream.off('end', finish);
      stream.off('error', finish);
      stream.pause();
      // A writer that never finishes must not keep the process alive after the answer.
      if (silent || timedOut) (stream as Partial<NodeJS.ReadStream>).destroy?.();
      resolve();
    }
    stream.on('data', onData);
    stream.once('end', finish);
    stream.once('error', finish);
  });
  return { text, cutChars, timedOut, silent };
}

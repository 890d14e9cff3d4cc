// Text piped to `cortex ask`: read once, bounded, and only from a pipe or a file (never a terminal or an open socket).
import { fstatSync } from 'node:fs';

/** Piped text kept as the question's context, in characters; the user is told when more was cut. */
export const MAX_PIPED_CHARS = 100_000;
/** Bound on waiting for the writer of a pipe to finish; what arrived by then is used (and the user told). */
export const STDIN_READ_TIMEOUT_MS = 60_000;

export interface StdinText {
  text: string;
  /** Characters dropped past MAX_PIPED_CHARS (0 when none). */
  cutChars: number;
  /** True when the writer had not finished within STDIN_READ_TIMEOUT_MS. */
  timedOut: boolean;
}

/**
 * True when stdin is a pipe or a regular file, the cases where a user piped text in. A terminal, /dev/null
 * and the sockets a parent process leaves open are not read, so `cortex ask` in a script never blocks on them.
 */
export function stdinIsPiped(fd = 0): boolean {
  try {
    const stat = fstatSync(fd);
    return stat.isFIFO() || (stat.isFile() && stat.size > 0);
  } catch {
    return false;
  }
}

/** Reads stdin to its end, keeping at most MAX_PIPED_CHARS characters. */
export async function readStdinText(stream: NodeJS.ReadableStream = process.stdin, timeoutMs = STDIN_READ_TIMEOUT_MS): Promise<StdinText> {
  let text = '';
  let cutChars = 0;
  let timedOut = false;
  stream.setEncoding('utf8');
  await new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      timedOut = true;
      finish();
    }, timeoutMs);
    const onData = (chunk: string) => {
      const room = MAX_PIPED_CHARS - text.length;
      text += chunk.slice(0, Math.max(0, room));
      cutChars += Math.max(0, chunk.length - room);
    };
    function finish() {
      clearTimeout(timer);
      stream.off('data', onData);
      stream.off('end', finish);
      stream.off('error', finish);
      stream.pause();
      resolve();
    }
    stream.on('data', onData);
    stream.once('end', finish);
    stream.once('error', finish);
  });
  return { text, cutChars, timedOut };
}

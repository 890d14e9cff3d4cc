// Progress on stderr: one line rewritten in place on a TTY, plain lines otherwise; silent with --quiet.
import type { Output } from './output.js';

export interface StatusLine {
  /** Text the next output replaces (on a TTY); a plain line when stderr is not a TTY. */
  transient(text: string): void;
  /** A line that stays. */
  line(text: string): void;
  /** Removes a transient text still shown. */
  clear(): void;
  /** Clears and forgets the line (the run it showed is over). */
  close(): void;
}

/** How many questions to the person are open now (an approval inside an elicitation counts twice). */
let asking = 0;
/** Clears the transient text of every status line shown, so a question starts at the left edge. */
const clearers = new Set<() => void>();
/** Lines that stay, written while a question was open: shown once it is answered, so none lands inside it. */
const heldLines: string[] = [];

/**
 * Runs `ask` (a question to the person: approval, a server's form, a plan's own question) with every status line
 * stopped: the line shown is cleared first and nothing transient draws until the answer is in; lines resume after.
 */
export async function whileAsking<T>(ask: () => Promise<T>): Promise<T> {
  for (const clear of clearers) clear();
  asking++;
  try {
    return await ask();
  } finally {
    asking--;
    if (asking === 0) for (const text of heldLines.splice(0)) process.stderr.write(text);
  }
}

export function createStatusLine(out: Output): StatusLine {
  const show = out.verbose || !out.quiet;
  let shown = false;
  const clear = () => {
    if (shown) process.stderr.write('\r\x1b[K');
    shown = false;
  };
  clearers.add(clear);
  return {
    transient(text) {
      if (!show || asking > 0) return;
      if (!out.tty) {
        process.stderr.write(`${text}\n`);
        return;
      }
      clear();
      process.stderr.write(out.err.dim(text.slice(0, (process.stderr.columns || 80) - 1)));
      shown = true;
    },
    line(text) {
      if (!show) return;
      if (asking > 0) {
        heldLines.push(`${text}\n`);
        return;
      }
      clear();
      process.stderr.write(`${text}\n`);
    },
    clear,
    close() {
      clear();
      clearers.delete(clear);
    },
  };
}

// Progress on stderr: one line rewritten in place on a TTY, plain lines otherwise; silent with --quiet.
import type { Output } from './output.js';

export interface StatusLine {
  /** Text the next output replaces (on a TTY); a plain line when stderr is not a TTY. */
  transient(text: string): void;
  /** A line that stays. */
  line(text: string): void;
  /** Removes a transient text still shown. */
  clear(): void;
}

export function createStatusLine(out: Output): StatusLine {
  const show = out.verbose || !out.quiet;
  let shown = false;
  const clear = () => {
    if (shown) process.stderr.write('\r\x1b[K');
    shown = false;
  };
  return {
    transient(text) {
      if (!show) return;
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
      clear();
      process.stderr.write(`${text}\n`);
    },
    clear,
  };
}

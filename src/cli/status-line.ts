// Progress on stderr: one line rewritten in place on a TTY, plain lines otherwise; silent with --quiet.
import type { Output } from './output.js';
import { progressHeld, whenReleased } from './screen-hold.js';

export interface StatusLine {
  /** Text the next output replaces (on a TTY); a plain line when stderr is not a TTY. */
  transient(text: string): void;
  /** A line that stays. */
  line(text: string): void;
  /** Removes a transient text still shown. */
  clear(): void;
  /** Clears, writes the lines still held, and stops listening for the end of a question to the person. */
  close(): void;
}

export function createStatusLine(out: Output): StatusLine {
  const show = out.verbose || !out.quiet;
  let shown = false;
  /** Lines that came while the person was being asked, written once the question is answered. */
  const kept: string[] = [];
  const clear = () => {
    if (shown) process.stderr.write('\r\x1b[K');
    shown = false;
  };
  const flush = () => {
    for (const text of kept.splice(0)) process.stderr.write(`${text}\n`);
  };
  const unsubscribe = whenReleased(flush);
  return {
    transient(text) {
      // While a question is on screen nothing draws over it; the next tick after the answer draws again.
      if (!show || progressHeld()) return;
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
      if (progressHeld()) {
        kept.push(text);
        return;
      }
      clear();
      process.stderr.write(`${text}\n`);
    },
    clear,
    close() {
      clear();
      flush();
      unsubscribe();
    },
  };
}

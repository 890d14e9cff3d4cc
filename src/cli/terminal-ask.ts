// Asking the user a question on the terminal: for `cortex ask` on a TTY (the REPL asks through its own reader).
import { createInterface } from 'node:readline/promises';
import type { AskUser } from '../policy/approval-gate.js';
import type { Output } from './output.js';
import { withProgressHeld } from './screen-hold.js';

/** Clears a status line still shown, so a question starts at the left edge. */
export function clearStatus(out: Output): void {
  if (out.tty) process.stderr.write('\r\x1b[K');
}

/** An AskUser on stdin/stderr when both are terminals; undefined otherwise (nobody to ask). */
export function terminalAsk(out: Output): AskUser | undefined {
  if (!process.stdin.isTTY || !process.stderr.isTTY) return undefined;
  // The spinner stops and its line goes before the question is drawn, and stays away until it is answered.
  return (question, signal) =>
    withProgressHeld(async () => {
      clearStatus(out);
      const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
      try {
        return await rl.question(question, { signal });
      } catch {
        // Aborted (the run ended) or the input closed: no answer.
        return null;
      } finally {
        rl.close();
      }
    });
}

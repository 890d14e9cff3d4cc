// The REPL's typed lines, queued as they arrive: questions and approval answers are read from it one at a time, in order.
import { untilAborted } from '../time/until-aborted.js';

/** One line as readline gave it, `pasted` when it came inside the terminal's bracketed paste. */
export interface QueuedLine {
  text: string;
  pasted: boolean;
}

/**
 * Lines typed at any time (also while a question runs) wait here until read. A reader that gives up waiting (its
 * signal aborts) takes nothing, so the next line stays queued for the next reader.
 */
export class LineQueue {
  private readonly lines: QueuedLine[] = [];
  /** Readers waiting for a line or the end; each is woken once. At most one per pending read. */
  private waiting: Array<() => void> = [];
  private ended = false;

  /** Queues a line and wakes the waiting reader. */
  push(line: QueuedLine): void {
    this.lines.push(line);
    this.wake();
  }

  /** The input has ended (Ctrl-D, piped input used up): readers get the lines still queued, then null. */
  end(): void {
    this.ended = true;
    this.wake();
  }

  /** True once the input has ended. */
  get closed(): boolean {
    return this.ended;
  }

  /** Lines queued and not yet read. */
  get size(): number {
    return this.lines.length;
  }

  /**
   * The next line, waiting for one if none is queued; null once the input has ended and every line was read.
   * @throws the signal's reason when it aborts first (the line, once typed, stays queued).
   */
  async next(signal?: AbortSignal): Promise<QueuedLine | null> {
    const ready = this.lines.length > 0 || this.ended ? Promise.resolve() : new Promise<void>((resolve) => this.waiting.push(resolve));
    await (signal ? untilAborted(ready, signal) : ready);
    return this.lines.shift() ?? null;
  }

  private wake(): void {
    const waiting = this.waiting;
    this.waiting = [];
    for (const resolve of waiting) resolve();
  }
}

// A DeadlineClock the test drives: time moves only when the test advances it, and due timers fire in order.
import type { DeadlineClock } from '../../src/time/pausable-deadline.js';

/** A runaway chain of timers scheduling timers is a bug in the code under test; one advance fires at most this many. */
const MAX_TIMERS_PER_ADVANCE = 10_000;

interface Timer {
  id: number;
  at: number;
  fn: () => void;
}

export class ManualClock implements DeadlineClock {
  private time = 0;
  private nextId = 1;
  private timers: Timer[] = [];

  now(): number {
    return this.time;
  }

  setTimeout(fn: () => void, ms: number): unknown {
    const timer = { id: this.nextId++, at: this.time + Math.max(0, ms), fn };
    this.timers.push(timer);
    return timer.id;
  }

  clearTimeout(handle: unknown): void {
    this.timers = this.timers.filter((t) => t.id !== handle);
  }

  /** Timers set and not yet fired or cleared. */
  get pending(): number {
    return this.timers.length;
  }

  /** Moves time `ms` on, firing each timer due by then at its own time, earliest (then oldest) first. */
  advance(ms: number): void {
    const until = this.time + ms;
    for (let fired = 0; ; fired++) {
      if (fired >= MAX_TIMERS_PER_ADVANCE) throw new Error(`more than ${MAX_TIMERS_PER_ADVANCE} timers fired in one advance`);
      const due = this.timers.filter((t) => t.at <= until).sort((a, b) => a.at - b.at || a.id - b.id)[0];
      if (!due) break;
      this.timers = this.timers.filter((t) => t !== due);
      this.time = due.at;
      due.fn();
    }
    this.time = until;
  }
}

// A HealTimer the test drives: attempts to bring a server back run when the test fires them, not when a clock says.
import type { HealTimer } from '../../src/mcp/healing.js';

export class ManualHealTimer implements HealTimer {
  /** Every delay asked for, in order. */
  readonly delays: number[] = [];
  private pending: Array<{ run: () => void; cancelled: boolean }> = [];

  schedule(delayMs: number, run: () => void): () => void {
    const entry = { run, cancelled: false };
    this.delays.push(delayMs);
    this.pending.push(entry);
    return () => {
      entry.cancelled = true;
    };
  }

  /** Runs every attempt waiting now (as if their delays had passed); returns how many ran. */
  fire(): number {
    const due = this.pending.filter((e) => !e.cancelled);
    this.pending = [];
    for (const entry of due) entry.run();
    return due.length;
  }
}

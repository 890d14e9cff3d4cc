// How many questions run at once: a fixed number of slots, refused (not queued) beyond it.

/** Seconds a refused client is told to wait (Retry-After): about one short question. */
export const RETRY_AFTER_SECONDS = 5;

/** A counter of running questions with a hard limit. */
export class QuestionSlots {
  private used = 0;
  private readonly idleWaiters: Array<() => void> = [];

  constructor(readonly limit: number) {}

  /** Questions running now. */
  get running(): number {
    return this.used;
  }

  /** Takes a slot and returns its release function (safe to call twice), or null when all are taken. */
  tryAcquire(): (() => void) | null {
    if (this.used >= this.limit) return null;
    this.used++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.used--;
      if (this.used === 0) for (const resolve of this.idleWaiters.splice(0)) resolve();
    };
  }

  /** Resolves once no question is running. */
  idle(): Promise<void> {
    return this.used === 0 ? Promise.resolve() : new Promise((resolve) => this.idleWaiters.push(resolve));
  }
}

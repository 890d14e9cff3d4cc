// How many questions run at once: a fixed number of slots, refused (not queued) beyond it.

/** Seconds a refused client is told to wait (Retry-After): about one short question. */
export const RETRY_AFTER_SECONDS = 5;

/** A counter of running questions with a hard limit. */
export class QuestionSlots {
  private used = 0;

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
    };
  }
}

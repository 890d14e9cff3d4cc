// A cancel must never end the process: work it abandoned may still reject with the abort's error later, unobserved.

/** Depth of `cause` links followed looking for the abort (wrappers nest it). */
const MAX_CAUSE_DEPTH = 5;

/** True for the error an abort produces: an AbortError (DOMException or Error), directly or as a cause. */
export function isAbortError(err: unknown): boolean {
  let current: unknown = err;
  for (let depth = 0; depth < MAX_CAUSE_DEPTH && current instanceof Error; depth++) {
    if (current.name === 'AbortError') return true;
    current = current.cause;
  }
  return false;
}

/**
 * Ignores unhandled rejections that are aborts (a stream or request a cancel abandoned rejects after nobody waits for
 * it); every other unhandled rejection stays fatal, as Node makes it.
 */
export function ignoreAbandonedAborts(): void {
  process.on('unhandledRejection', (reason) => {
    if (!isAbortError(reason)) throw reason;
  });
}

// A cancel must never end the process: work it abandoned may still reject with the abort's error later, unobserved.
import { causeMatching } from '../errors.js';

/** True for the error an abort produces: an AbortError (DOMException or Error), directly or as a cause. */
export function isAbortError(err: unknown): boolean {
  return causeMatching(err, (e) => e.name === 'AbortError') !== undefined;
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

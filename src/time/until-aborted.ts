// The one abort race: waiting on work that has no abort signal of its own (or ignores it), up to a signal that has.

/**
 * Settles with `work`, or rejects with the signal's reason as soon as it aborts (at once if it already has). The work
 * is left to its own clean-up; should it fail after the race was lost, its failure is nobody's to hear.
 */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    work.catch(() => undefined);
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

// A question aborted through its signal: the error the loop's stages throw, and the race that throws it.
import { CortexError } from '../errors.js';

/** The run was aborted through its signal; caught inside runAgent and turned into status 'cancelled'. */
export class RunCancelled extends CortexError {
  constructor() {
    super('cancelled', 'the question was cancelled');
  }
}

export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new RunCancelled();
}

/**
 * Settles with `work`, or rejects as soon as `signal` aborts — for collaborators that cannot be
 * interrupted (an LLM client that ignores its signal).
 */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  if (signal.aborted) return Promise.reject(new RunCancelled());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new RunCancelled());
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}

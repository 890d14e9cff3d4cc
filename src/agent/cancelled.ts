// A question aborted through its signal: the error the loop's stages throw, and the one abort race (src/time) they wait through.
import { CortexError } from '../errors.js';
import { untilAborted as raceAbort } from '../time/until-aborted.js';

/** The run was aborted through its signal; caught inside runAgent and turned into status 'cancelled'. */
export class RunCancelled extends CortexError {
  constructor() {
    super('cancelled', 'the question was cancelled');
  }
}

export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new RunCancelled();
}

/** `work`, raced against the question's signal when there is one (src/time/until-aborted.ts); runAgent turns the abort into 'cancelled'. */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  return signal ? raceAbort(work, signal) : work;
}

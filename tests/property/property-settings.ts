// Shared settings of the property suites: one fixed seed (so a failure replays), run counts, and a tally for the report.
import fc from 'fast-check';
import { CortexError } from '../../src/errors.js';

/** Every suite runs from this seed; fast-check prints it, the path and the shrunk counter-example on failure. */
export const SEED = 20_261_123;

/** Cases per property: many for pure functions, fewer where a case builds a DOM or touches the disk. */
export const RUNS = { pure: 500, slow: 60 } as const;

const tally = new Map<string, number>();

/**
 * fc.assert with the fixed seed and `numRuns`, counting the cases for the report. `verbose` makes the failure
 * message carry the shrunk counter-example and the seed/path to replay it.
 */
export async function check<Ts extends unknown[]>(name: string, property: fc.IProperty<Ts> | fc.IAsyncProperty<Ts>, numRuns: number): Promise<void> {
  const params = { seed: SEED, numRuns, verbose: fc.VerbosityLevel.Verbose };
  if (property.isAsync()) await fc.assert(property as fc.IAsyncProperty<Ts>, params);
  else fc.assert(property as fc.IProperty<Ts>, params);
  tally.set(name, (tally.get(name) ?? 0) + numRuns);
}

/** The cases run so far in this file, by property, and their total. */
export function tallyLine(): string {
  const total = [...tally.values()].reduce((a, b) => a + b, 0);
  return `${total} cases: ${[...tally].map(([name, n]) => `${name} ${n}`).join(', ')}`;
}

/** Fails unless `err` is one of our typed errors with a one-line message. */
export function expectTypedError(err: unknown, type: abstract new (...args: never[]) => CortexError = CortexError): void {
  if (!(err instanceof type)) throw new Error(`threw ${err instanceof Error ? `${err.constructor.name}: ${err.message}` : String(err)}, not a ${type.name}`);
  if (err.message.includes('\n')) throw new Error(`a ${type.name} message spans lines: ${JSON.stringify(err.message)}`);
}

/** Text built from `tokens` (each picked at random), at most `maxTokens` of them: adversarial input for parsers. */
export function tokenText(tokens: readonly string[], maxTokens: number): fc.Arbitrary<string> {
  return fc.array(fc.constantFrom(...tokens), { maxLength: maxTokens }).map((parts) => parts.join(''));
}

/** Random text mixing arbitrary unicode with the given adversarial tokens. */
export function hostileText(tokens: readonly string[], maxTokens: number): fc.Arbitrary<string> {
  return fc.oneof(
    fc.string({ maxLength: maxTokens * 4, unit: 'binary' }),
    tokenText(tokens, maxTokens),
    fc.array(fc.oneof(fc.constantFrom(...tokens), fc.string({ maxLength: 8, unit: 'grapheme' })), { maxLength: maxTokens }).map((p) => p.join('')),
  );
}

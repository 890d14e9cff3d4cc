// Property: the fast path checks of read-safely answer exactly what the slower obvious code answers.
import fc from 'fast-check';
import { isAbsolute, relative, sep } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isInside } from '../../src/rag/extract/read-safely.js';
import { check, RUNS, tallyLine } from './property-settings.js';

afterAll(() => console.log(`read-safely properties: ${tallyLine()}`));

/** The earlier isInside, through path.relative(): the reference the prefix test must agree with. */
function isInsideByRelative(parent: string, child: string): boolean {
  const rel = relative(parent, child);
  return rel !== '' && !isAbsolute(rel) && rel.split(sep)[0] !== '..';
}

/** Folder and file names that trip naive prefix tests: common prefixes, dots, spaces, the kernel's " (deleted)". */
const TRICKY_NAMES = ['docs', 'docs-2', 'doc', 'docs2', 'docs.bak', '..x', 'x..', '...', '.hidden', ' ', 'docs ', 'a', 'b', 'é', 'a (deleted)', '-'];

/** One path segment: never empty, '.', '..' or containing the separator (a normalised path has none of those). */
const segment = fc.oneof(
  fc.constantFrom(...TRICKY_NAMES),
  fc.string({ minLength: 1, maxLength: 6, unit: 'binary' }).filter((s) => !s.includes(sep) && s !== '.' && s !== '..'),
);
const segments = fc.array(segment, { maxLength: 5 });
const absolute = (parts: string[]): string => sep + parts.join(sep);

/** A child of the parent's neighbourhood: below it, the parent itself, an ancestor, a sibling sharing a prefix, or anywhere. */
function neighbour(parent: string[]): fc.Arbitrary<string[]> {
  return fc.oneof(
    segments.map((extra) => [...parent, ...extra]),
    fc.constant(parent),
    fc.nat({ max: parent.length }).map((keep) => parent.slice(0, keep)),
    fc.tuple(fc.constantFrom('-2', '2', ' ', '.', '..x', '_'), segments).map(([suffix, extra]) =>
      parent.length === 0 ? extra : [...parent.slice(0, -1), parent[parent.length - 1] + suffix, ...extra],
    ),
    segments,
  );
}

describe('isInside, property-based', () => {
  it('agrees with the path.relative() test on any pair of normalised absolute paths', async () => {
    const pairs = segments.chain((parent) => neighbour(parent).map((child) => [absolute(parent), absolute(child)] as const));
    await check(
      'isInside',
      fc.property(pairs, ([parent, child]) => {
        expect(isInside(parent, child)).toBe(isInsideByRelative(parent, child));
      }),
      RUNS.pure * 10,
    );
  });
});

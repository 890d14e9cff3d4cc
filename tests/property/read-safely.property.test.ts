// Property: the fast path checks of read-safely answer exactly what the slower obvious code answers.
import fc from 'fast-check';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isInside, newRealPathCache, resolveSafely, type ResolvedFile, type SafeReadFailure } from '../../src/rag/extract/read-safely.js';
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

/** Names of the random trees: few, so that paths meet, and two that share a prefix. */
const TREE_NAMES = ['a', 'b', 'a-2'];
const treePath = fc.array(fc.constantFrom(...TREE_NAMES), { minLength: 1, maxLength: 2 });

/**
 * One entry of a random tree, in the documents folder or beside it. A symlink points mostly to another entry
 * (`to`, an index), else anywhere in either folder, which may be nowhere.
 */
const treeEntry = fc.record({
  outside: fc.boolean(),
  path: treePath,
  kind: fc.constantFrom('folder', 'folder', 'file', 'symlink'),
  target: fc.record({ outside: fc.boolean(), path: treePath, relative: fc.boolean(), to: fc.option(fc.nat(), { freq: 3 }) }),
});
type TreeEntry = typeof treeEntry extends fc.Arbitrary<infer T> ? T : never;

/** Builds `entries` under `base` (documents/ and outside/), shallow first; an entry whose place is taken is skipped. */
function buildTree(base: string, entries: TreeEntry[]): void {
  const side = (outside: boolean) => join(base, outside ? 'outside' : 'documents');
  for (const { outside, path, kind, target } of [...entries].sort((x, y) => x.path.length - y.path.length)) {
    const at = join(side(outside), ...path);
    const pointed = target.to === null ? target : entries[target.to % entries.length]!;
    const to = join(side(pointed.outside), ...pointed.path);
    try {
      if (kind === 'folder') mkdirSync(at);
      else if (kind === 'file') writeFileSync(at, path.join('/'));
      else symlinkSync(target.relative ? relative(dirname(at), to) : to, at);
    } catch {
      // Its folder is missing or a file, or the name is taken: the tree is random, not every entry fits.
    }
  }
}

/**
 * A path to look up: mostly one entry's path followed by the end of another's (which walks through symlinked folders
 * into what they lead to), else any names, '..' and '.'.
 */
function query(entries: TreeEntry[]): fc.Arbitrary<string[]> {
  const paths = entries.flatMap(({ path, target }) => [path, target.path]);
  const joined = fc.tuple(fc.constantFrom(...paths), fc.constantFrom(...paths), fc.nat({ max: 3 })).map(([head, tail, drop]) => [...head, ...tail.slice(drop)]);
  return fc.oneof({ weight: 3, arbitrary: joined }, { weight: 1, arbitrary: fc.array(fc.constantFrom(...TREE_NAMES, '..', '.'), { minLength: 1, maxLength: 4 }) });
}

/** What a resolution decided, comparable across calls: the real path and inode, or the refusal. */
function decision(outcome: ResolvedFile | SafeReadFailure) {
  return outcome.ok ? { realPath: outcome.realPath, ino: outcome.stats.ino } : outcome;
}

describe('resolveSafely with a batch cache, property-based', () => {
  it('decides every path of a batch as it does without the cache, on any tree of folders, files and symlinks', async () => {
    const cases = fc.array(treeEntry, { minLength: 1, maxLength: 24 }).chain((entries) => fc.tuple(fc.constant(entries), fc.array(query(entries), { minLength: 1, maxLength: 32 })));
    await check(
      'resolveSafely cache',
      fc.property(cases, ([entries, paths]) => {
        const base = mkdtempSync(join(tmpdir(), 'read-safely-property-'));
        try {
          mkdirSync(join(base, 'documents'));
          mkdirSync(join(base, 'outside'));
          buildTree(base, entries);
          const root = join(base, 'documents');
          const cache = newRealPathCache();
          for (const path of paths.map((parts) => parts.join('/'))) {
            expect(decision(resolveSafely(root, path, cache)), path).toEqual(decision(resolveSafely(root, path)));
          }
        } finally {
          rmSync(base, { recursive: true, force: true });
        }
      }),
      RUNS.slow * 5,
    );
  });
});

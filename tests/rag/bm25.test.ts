// BM25 ranking and reciprocal rank fusion, as pure functions.
import { describe, expect, it } from 'vitest';
import { buildBm25Index } from '../../src/rag/search/bm25.js';
import { reciprocalRankFusion } from '../../src/rag/search/reciprocal-rank-fusion.js';

describe('buildBm25Index', () => {
  const texts = [
    'The steam engine uses pressure to move a piston.',
    'Oxygen is a chemical element with symbol O.',
    'A steam turbine and a steam engine both use steam.',
    'The weather today is sunny.',
  ];
  const bm25 = buildBm25Index(texts);

  it('ranks texts sharing more and rarer query terms first', () => {
    const hits = bm25.search('steam engine', 10);
    expect(hits.map((h) => h.index)).toEqual([2, 0]);
    expect(hits[0]!.score).toBeGreaterThan(hits[1]!.score);
  });

  it('returns only texts sharing a non-stopword term, and nothing for stopwords alone', () => {
    expect(bm25.search('oxygen', 10).map((h) => h.index)).toEqual([1]);
    expect(bm25.search('what is the', 10)).toEqual([]);
    expect(bm25.search('volcano', 10)).toEqual([]);
  });

  it('matches inflected forms through stemming and respects k', () => {
    expect(bm25.search('engines', 10).map((h) => h.index).sort()).toEqual([0, 2]);
    expect(bm25.search('engines', 1)).toHaveLength(1);
    expect(bm25.sharesTerm('pistons', 0)).toBe(true);
    expect(bm25.sharesTerm('pistons', 1)).toBe(false);
  });

  it('gives a rarer term a higher weight than a common one', () => {
    // "steam" is in 2 of 4 texts, "sunny" in 1: a text holding each once scores higher for the rare one.
    const both = buildBm25Index(['steam sunny', 'steam', 'steam', 'other']);
    const steam = both.search('steam', 4).find((h) => h.index === 0)!.score;
    const sunny = both.search('sunny', 4).find((h) => h.index === 0)!.score;
    expect(sunny).toBeGreaterThan(steam);
  });

  it('handles an empty index', () => {
    expect(buildBm25Index([]).search('anything', 5)).toEqual([]);
  });
});

describe('reciprocalRankFusion', () => {
  it('scores each key by the sum of 1/(60 + rank) over the lists', () => {
    const fused = reciprocalRankFusion([
      ['a', 'b', 'c'],
      ['c', 'a'],
    ]);
    expect(fused.map((f) => f.key)).toEqual(['a', 'c', 'b']);
    expect(fused[0]!.score).toBeCloseTo(1 / 61 + 1 / 62, 12);
    expect(fused[1]!.score).toBeCloseTo(1 / 63 + 1 / 61, 12);
    expect(fused[0]!.ranks).toEqual([1, 2]);
    expect(fused[2]!.ranks).toEqual([2, undefined]);
  });

  it('prefers an item both lists found over one that tops a single list', () => {
    const fused = reciprocalRankFusion([
      ['solo', 'both'],
      ['other', 'both'],
    ]);
    expect(fused[0]!.key).toBe('both');
  });

  it('breaks score ties by best single rank, then first appearance, and ignores repeats within a list', () => {
    const fused = reciprocalRankFusion([
      ['x', 'y', 'x'],
      ['y', 'x'],
    ]);
    expect(fused.map((f) => f.key)).toEqual(['x', 'y']);
    expect(fused[0]!.score).toBeCloseTo(1 / 61 + 1 / 62, 12);
    expect(reciprocalRankFusion([[], []])).toEqual([]);
  });
});

// The index.bin codec against real faiss-node: same bytes, loadable, searchable, corrupt files refused.
import { describe, expect, it } from 'vitest';
import { decodeFlatIndex, encodeFlatIndex, FlatIndexFormatError, loadFaissIndex, newFaissIndex } from '../../src/rag/index/flat-index-file.js';

describe('the IndexFlatIP file codec', () => {
  const vectors = Float32Array.from([1, 0, 0, 0, 0.6, 0.8, 0, 0, 0, 0, 1, 0]);

  it('writes exactly the bytes faiss-node writes for the same index', () => {
    const reference = newFaissIndex(4);
    reference.add(Array.from(vectors));
    expect(encodeFlatIndex(4, vectors).equals(reference.toBuffer())).toBe(true);
  });

  it('produces a file faiss loads and searches by inner product', () => {
    const index = loadFaissIndex(encodeFlatIndex(4, vectors));
    expect(index.ntotal()).toBe(3);
    const { labels, distances } = index.search([0.6, 0.8, 0, 0], 2);
    expect(labels).toEqual([1, 0]);
    expect(distances[0]).toBeCloseTo(1, 6);
    expect(distances[1]).toBeCloseTo(0.6, 6);
  });

  it('decodes its own output back to the same vectors', () => {
    const decoded = decodeFlatIndex(encodeFlatIndex(4, vectors));
    expect(decoded).toMatchObject({ dimension: 4, count: 3 });
    expect(Array.from(decoded.vectors)).toEqual(Array.from(vectors));
  });

  it('refuses truncated files, other index types and garbage', () => {
    const bytes = encodeFlatIndex(4, vectors);
    expect(() => decodeFlatIndex(bytes.subarray(0, bytes.length - 4))).toThrow(FlatIndexFormatError);
    const l2 = Buffer.from(bytes);
    l2.write('IxF2', 0, 'latin1');
    expect(() => decodeFlatIndex(l2)).toThrow(/not an IndexFlatIP/);
    expect(() => loadFaissIndex(Buffer.from('garbage'))).toThrow(FlatIndexFormatError);
  });
});

// ann.bin: the IVF index of large indexes finds what exact search finds and is ignored when it is from another generation.
import { describe, expect, it } from 'vitest';
import { ANN_MIN_CHUNKS, cellsFor, decodeAnnFile, encodeAnnFile, wantsAnnIndex } from '../../src/rag/index/ann-index.js';

/** Unit vectors from a seeded generator (mulberry32), so the test is the same on every run. */
function unitVectors(count: number, dimension: number): Float32Array {
  let a = 12345;
  const random = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const vectors = new Float32Array(count * dimension);
  for (let i = 0; i < count; i++) {
    let sum = 0;
    for (let j = 0; j < dimension; j++) sum += (vectors[i * dimension + j] = random() - 0.5) ** 2;
    for (let j = 0; j < dimension; j++) vectors[i * dimension + j]! /= Math.sqrt(sum);
  }
  return vectors;
}

describe('the approximate index', () => {
  const dimension = 16;
  const count = 3_000;
  const vectors = unitVectors(count, dimension);
  const bytes = encodeAnnFile(5, dimension, vectors);

  it('finds each stored vector as its own nearest neighbour (its cell is always probed)', () => {
    const ann = decodeAnnFile(bytes, 5, count)!;
    expect(ann.ntotal()).toBe(count);
    for (const row of [0, 17, 1_234, 2_999]) {
      const { labels, distances } = ann.search(Array.from(vectors.subarray(row * dimension, (row + 1) * dimension)), 3);
      expect(labels[0]).toBe(row);
      expect(distances[0]).toBeCloseTo(1, 5);
    }
  });

  it('is ignored when it belongs to another generation or count, or is damaged', () => {
    expect(decodeAnnFile(bytes, 6, count)).toBeNull();
    expect(decodeAnnFile(bytes, 5, count - 1)).toBeNull();
    expect(decodeAnnFile(bytes.subarray(0, 200), 5, count)).toBeNull();
    expect(decodeAnnFile(Buffer.from('nothing'), 5, count)).toBeNull();
  });

  it('is built for large indexes of embedding models only (the built-in vectors are not fused)', () => {
    expect(wantsAnnIndex(ANN_MIN_CHUNKS, 'ollama:nomic-embed-text')).toBe(true);
    expect(wantsAnnIndex(ANN_MIN_CHUNKS - 1, 'ollama:nomic-embed-text')).toBe(false);
    expect(wantsAnnIndex(1_000_000, 'builtin:lexical-v2-1024')).toBe(false);
  });

  it('uses about √n cells', () => {
    expect(cellsFor(100_000)).toBe(316);
    expect(cellsFor(100)).toBe(16);
  });
});

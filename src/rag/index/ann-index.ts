// The approximate faiss index (IVF, inverted lists over k-means cells) built beside index.bin for large indexes: ann.bin.
import { faiss } from './faiss.js';
import type { FaissIndex } from './flat-index-file.js';

/** Any faiss index faiss-node can search (IndexIVFFlat here). */
export type AnnIndex = Pick<FaissIndex, 'search' | 'ntotal'>;

/** The ANN file beside index.bin; written before metadata.json, tied to it by the generation number and count. */
export const ANN_FILE = 'ann.bin';
/**
 * Below this many chunks vector search stays exact (IndexFlatIP): a flat scan of 20,000 1,024-float vectors takes a
 * few milliseconds, and building the IVF index costs seconds at every index write.
 */
export const ANN_MIN_CHUNKS = 20_000;
/** Vectors added to faiss per call: faiss-node takes JS arrays, so batches bound the temporary copy. */
const ADD_BATCH_VECTORS = 2_000;
/** k-means training points per cell (faiss asks for 39; fewer trains faster with little loss). */
const TRAINING_POINTS_PER_CELL = 30;
/**
 * Share of the cells searched per query: 1/4. Measured on the built-in embedder's vectors of SQuAD dev sentences
 * (10,220 vectors): recall@10 against exact search 0.69 at 1/8, 0.78 at 1/4, at a sixth and a third of the exact time.
 */
const PROBE_SHARE = 4;
const MAGIC = 'CXA1';
/** magic + generation (u32) + count (u32). */
const HEADER_BYTES = 12;
/** Where faiss 1.7 writes an IndexIVF's nprobe: after fourcc, the index header (33 bytes) and nlist (u64). */
const NPROBE_OFFSET = 4 + 33 + 8;

/** Cells of the IVF index for `count` vectors: about √count, as faiss's guidelines suggest. */
export function cellsFor(count: number): number {
  return Math.max(16, Math.round(Math.sqrt(count)));
}

/** Whether an index of `count` chunks embedded by `model` gets ann.bin: large ones, built by an embedding model. */
export function wantsAnnIndex(count: number, model: string): boolean {
  // The built-in embedder's vectors are not part of the fused search (its weight is 0): no k-means for them.
  return count >= ANN_MIN_CHUNKS && !model.startsWith('builtin:');
}

/**
 * ann.bin's bytes: an IVF index over `vectors` (unit length, row-major, so inner product is cosine) searching a
 * quarter of its cells per query, trained on an evenly spaced sample. faiss-node cannot set nprobe, so it is written
 * into the serialised index.
 */
export function encodeAnnFile(generation: number, dimension: number, vectors: Float32Array): Buffer {
  const count = vectors.length / dimension;
  const cells = cellsFor(count);
  const index = faiss().Index.fromFactory(dimension, `IVF${cells},Flat`, faiss().MetricType.METRIC_INNER_PRODUCT);
  const sampleSize = Math.min(count, cells * TRAINING_POINTS_PER_CELL);
  const step = count / sampleSize;
  const sample: number[] = [];
  for (let i = 0; i < sampleSize; i++) {
    const row = Math.floor(i * step);
    for (let j = 0; j < dimension; j++) sample.push(vectors[row * dimension + j]!);
  }
  index.train(sample);
  for (let start = 0; start < count; start += ADD_BATCH_VECTORS) {
    index.add(Array.from(vectors.subarray(start * dimension, Math.min(count, start + ADD_BATCH_VECTORS) * dimension)));
  }
  const bytes = index.toBuffer();
  bytes.writeBigUInt64LE(BigInt(Math.max(1, Math.ceil(cells / PROBE_SHARE))), NPROBE_OFFSET);
  const header = Buffer.alloc(HEADER_BYTES);
  header.write(MAGIC, 0, 'latin1');
  header.writeUInt32LE(generation, 4);
  header.writeUInt32LE(count, 8);
  return Buffer.concat([header, bytes]);
}

/** The ANN index in ann.bin bytes when it belongs to `generation` with `count` vectors; null otherwise (exact search is used). */
export function decodeAnnFile(bytes: Buffer, generation: number, count: number): AnnIndex | null {
  if (bytes.length < HEADER_BYTES || bytes.toString('latin1', 0, 4) !== MAGIC) return null;
  if (bytes.readUInt32LE(4) !== generation || bytes.readUInt32LE(8) !== count) return null;
  try {
    const index = faiss().Index.fromBuffer(bytes.subarray(HEADER_BYTES));
    return index.ntotal() === count ? index : null;
  } catch {
    return null;
  }
}

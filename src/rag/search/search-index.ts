// A loaded, searchable index: the chunk records, a faiss IndexFlatIP over their vectors (plus an IVF index when large), and BM25.
import { join } from 'node:path';
import { CortexError } from '../../errors.js';
import { encodeFlatIndex, type FaissIndex, loadFaissIndex } from '../index/flat-index-file.js';
import { ANN_FILE, type AnnIndex, decodeAnnFile, wantsAnnIndex } from '../index/ann-index.js';
import type { Embedder } from '../embed/embedder.js';
import { embedRows } from '../embed/embed-texts.js';
import type { ChunkRecord } from '../index/index-files.js';
import { readIndexStore, readOptional, savedBm25 } from '../index/index-store.js';
import { bm25FromData, buildBm25Index, type Bm25Data, type Bm25Index } from './bm25.js';

/** The index on disk exists but cannot be used; the indexer would rebuild it. */
export class IndexUnusableError extends CortexError {
  constructor(
    readonly indexDir: string,
    readonly reason: string,
  ) {
    super('index_unusable', `the index in ${indexDir} is unusable (${reason}); run \`cortex index\` to rebuild it`);
  }
}

/** Everything a search needs. BM25 comes from bm25.bin, or is rebuilt from the chunk texts on first use when that file is stale. */
export interface SearchIndex {
  readonly generation: number;
  readonly model: string;
  readonly dimension: number;
  readonly chunks: readonly ChunkRecord[];
  /**
   * The exact vector index. An index stored without vectors (an in-process embedder's, see Embedder.inProcess) has
   * them computed with `embedder` on first use and kept. Only call it for a non-empty index and the index's embedder.
   */
  vectorIndex(embedder: Embedder): Promise<FaissIndex>;
  /** The approximate (IVF) index of a large index, searched instead of vectorIndex(); null: exact search. */
  readonly ann: AnnIndex | null;
  bm25(): Bm25Index;
  /** Number of distinct documents with chunks. */
  readonly documents: number;
}

function makeSearchIndex(
  generation: number,
  model: string,
  dimension: number,
  chunks: readonly ChunkRecord[],
  faiss: FaissIndex | null,
  saved: Bm25Data | null = null,
  ann: AnnIndex | null = null,
): SearchIndex {
  let bm25: Bm25Index | null = null;
  let computed: Promise<FaissIndex> | null = null;
  const compute = (embedder: Embedder): Promise<FaissIndex> => {
    if (!computed) {
      computed = computeVectorIndex(chunks, embedder, dimension);
      // A failed computation is tried again by the next search.
      computed.catch(() => (computed = null));
    }
    return computed;
  };
  return {
    generation,
    model,
    dimension,
    chunks,
    vectorIndex: (embedder) => (faiss ? Promise.resolve(faiss) : compute(embedder)),
    ann,
    documents: new Set(chunks.map((c) => c.doc)).size,
    bm25: () => (bm25 ??= saved ? bm25FromData(saved) : buildBm25Index(chunks.map((c) => c.chunk))),
  };
}

/** An exact index over the chunks' vectors computed now, for an index stored without them. */
async function computeVectorIndex(chunks: readonly ChunkRecord[], embedder: Embedder, dimension: number): Promise<FaissIndex> {
  const vectors = new Float32Array(chunks.length * dimension);
  await embedRows(embedder, chunks.map((c) => c.chunk), vectors);
  return loadFaissIndex(encodeFlatIndex(dimension, vectors));
}

/**
 * Loads the index in `indexDir` for searching; null when there is none yet.
 * @throws IndexUnusableError when the files disagree or cannot be parsed (the indexer rebuilds such an index).
 */
export async function loadSearchIndex(indexDir: string): Promise<SearchIndex | null> {
  const result = await readIndexStore(indexDir);
  if (result.status === 'missing') return null;
  if (result.status === 'invalid') throw new IndexUnusableError(indexDir, result.reason);
  const { store } = result;
  let faiss: FaissIndex | null = null;
  if (store.chunks.length > 0 && store.vectorsStored) {
    try {
      faiss = loadFaissIndex(store.indexBytes);
    } catch (err) {
      throw new IndexUnusableError(indexDir, (err as Error).message);
    }
  }
  // Read only for a large index. A missing, stale or unreadable ann.bin means exact search, never an error.
  const annBytes = wantsAnnIndex(store.chunks.length, store.model) ? await readOptional(join(indexDir, ANN_FILE)) : null;
  const ann = annBytes ? decodeAnnFile(annBytes, store.generation, store.chunks.length) : null;
  return makeSearchIndex(store.generation, store.model, store.dimension, store.chunks, faiss, savedBm25(store), ann);
}

/**
 * An in-memory index over `chunks` and their unit-length `vectors` (row-major), for benchmarks and tests; built
 * through the same faiss file encoding the indexer writes.
 */
export function createSearchIndex({ chunks, vectors, model, dimension }: { chunks: ChunkRecord[]; vectors: Float32Array; model: string; dimension: number }): SearchIndex {
  if (vectors.length !== chunks.length * dimension) throw new RangeError(`${chunks.length} chunks need ${chunks.length * dimension} floats, got ${vectors.length}`);
  const faiss = chunks.length > 0 ? loadFaissIndex(encodeFlatIndex(dimension, vectors)) : null;
  return makeSearchIndex(0, model, dimension, chunks, faiss);
}

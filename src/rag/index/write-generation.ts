// The indexer's last step: the kept rows plus the new ones become the next generation, written atomically.
import { embedRows } from '../embed/embed-texts.js';
import { buildBm25Data } from '../search/bm25.js';
import { terms } from '../text/tokenize.js';
import { decodeFlatIndex } from './flat-index-file.js';
import type { ChunkRecord } from './index-files.js';
import type { IndexRun, RunTally } from './index-run.js';
import { savedBm25, writeDocCache, writeIndexStore, type IndexStore } from './index-store.js';

/** The index on disk after the run. */
export interface WrittenGeneration {
  generation: number;
  /** True when the searchable content changed (a new generation was written). */
  changed: boolean;
  /** Chunks in the index afterwards. */
  chunks: number;
}

/**
 * Writes a new generation when anything but refreshed mtimes changed: chunks, the set of files and their failures, or
 * whether vectors are stored; else only the refreshed entries (`entriesRefreshed`). Kept rows are the old ones whose
 * document is neither gone nor replaced, in their old order; their vectors and BM25 postings carry over.
 * @param store The index the run builds on; null when it starts from scratch.
 * @param lastGeneration The generation on disk before the run (0 when none): a rebuild continues its numbering.
 */
export async function writeGeneration(run: IndexRun, store: IndexStore | null, lastGeneration: number, entriesRefreshed: boolean, tally: RunTally): Promise<WrittenGeneration> {
  const oldChunks = store?.chunks ?? [];
  const keep = oldChunks.map((chunk) => !tally.dropped.has(chunk.doc));
  const keptCount = keep.filter(Boolean).length;
  const changed =
    store === null || tally.dropped.size > 0 || Object.keys(tally.files).length !== Object.keys(store.files).length || store.vectorsStored !== run.storeVectors;
  const totalChunks = keptCount + tally.chunks.length;
  if (!changed) {
    if (entriesRefreshed) await writeDocCache(run.indexDir, { generation: lastGeneration, model: store.model, chunker: store.chunker, files: tally.files });
    return { generation: lastGeneration, changed, chunks: totalChunks };
  }
  run.progress({ phase: 'saving', chunks: totalChunks });
  const kept = oldChunks.filter((_, row) => keep[row]);
  const vectors = run.storeVectors ? await assembleVectors(run, store, keep, kept, tally.vectors) : null;
  const generation = lastGeneration + 1;
  // Kept chunks' postings carry over from bm25.bin (tokenised again only when it was missing or stale).
  const base = store && keptCount > 0 ? { data: savedBm25(store) ?? buildBm25Data(oldChunks.map((c) => terms(c.chunk))), keep: (row: number) => keep[row]! } : undefined;
  const bm25 = buildBm25Data(tally.terms, base);
  const dimension = run.embedder.dimension;
  await writeIndexStore(run.indexDir, { generation, model: run.embedder.id, dimension, chunker: run.chunker, chunks: [...kept, ...tally.chunks], vectors, files: tally.files, bm25 });
  return { generation, changed, chunks: totalChunks };
}

/** Every row's vector, kept rows first: copied from index.bin, or computed once when the old index stored none. */
async function assembleVectors(run: IndexRun, store: IndexStore | null, keep: boolean[], kept: ChunkRecord[], newVectors: Float32Array[]): Promise<Float32Array> {
  const dimension = run.embedder.dimension;
  const vectors = new Float32Array((kept.length + newVectors.length) * dimension);
  if (store?.vectorsStored && kept.length > 0) {
    const old = decodeFlatIndex(store.indexBytes).vectors;
    let out = 0;
    keep.forEach((isKept, row) => isKept && vectors.set(old.subarray(row * dimension, (row + 1) * dimension), out++ * dimension));
  } else if (kept.length > 0) {
    run.say(`the fused search now uses vectors; computing them for the ${kept.length} chunks already indexed`);
    await embedRows(run.embedder, kept.map((c) => c.chunk), vectors);
  }
  newVectors.forEach((vector, i) => vectors.set(vector, (kept.length + i) * dimension));
  return vectors;
}

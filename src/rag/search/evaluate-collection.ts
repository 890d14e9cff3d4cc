// Scores the three retrievers on a BEIR-format collection: nDCG@10, recall@5/@100, MRR@10 and query latency.
import { chunkStructural } from '../chunk/structural-chunker.js';
import type { Embedder } from '../embed/embedder.js';
import { embedRows } from '../embed/embed-texts.js';
import type { ChunkRecord } from '../index/index-files.js';
import type { BeirCollection } from './beir-collection.js';
import { mrrAt, ndcgAt, recallAt } from './retrieval-metrics.js';
import { retrieve, RETRIEVERS, type RetrieverName, vectorWeightOf } from './retrievers.js';
import { createSearchIndex, type SearchIndex } from './search-index.js';

/** Documents ranked per query: recall@100 needs a hundred. */
export const EVAL_DEPTH = 100;
/** Chunks fetched per query to fill {@link EVAL_DEPTH} distinct documents when documents have several chunks. */
const EVAL_CHUNK_DEPTH = 300;

/** Mean figures of one retriever over the judged queries. */
export interface RetrieverFigures {
  ndcg10: number;
  recall5: number;
  recall100: number;
  mrr10: number;
  /** Median and 95th-percentile milliseconds per query, query embedding included. */
  latencyMs: { median: number; p95: number };
}

export interface CollectionEvaluation {
  documents: number;
  chunks: number;
  queries: number;
  embedder: string;
  vectorWeight: number;
  /** Per retriever: 'vector', 'bm25' and 'hybrid' (fused). */
  figures: Record<RetrieverName, RetrieverFigures>;
  /** Per query and retriever, nDCG@10 (for significance tests and error analysis). */
  perQuery: Array<{ id: string } & Record<RetrieverName, number>>;
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

/** Chunks every document like the indexer's structural chunking (title as a heading) and embeds them into an in-memory index. */
export async function indexCollection(collection: BeirCollection, embedder: Embedder): Promise<SearchIndex> {
  const chunks: ChunkRecord[] = [];
  for (const doc of collection.corpus) {
    const text = doc.title ? `# ${doc.title}\n\n${doc.text}` : doc.text;
    chunkStructural([{ page: 1, text }]).forEach((piece, i) => chunks.push({ doc: doc.id, chunk_id: `${doc.id}#${i}`, page: 1, format: 'txt', chunk: piece.text }));
  }
  const vectors = new Float32Array(chunks.length * embedder.dimension);
  await embedRows(embedder, chunks.map((c) => c.chunk), vectors);
  return createSearchIndex({ chunks, vectors, model: embedder.id, dimension: embedder.dimension });
}

/**
 * Ranks the collection's documents for every judged query with each retriever (a document ranks where its best
 * chunk does) and averages the metrics. `vectorWeight` overrides the embedder's fusion weight.
 */
export async function evaluateCollection({
  collection,
  index,
  embedder,
  vectorWeight,
}: {
  collection: BeirCollection;
  index: SearchIndex;
  embedder: Embedder;
  vectorWeight?: number;
}): Promise<CollectionEvaluation> {
  const weight = vectorWeightOf(embedder, vectorWeight);
  index.bm25();
  const sums = Object.fromEntries(RETRIEVERS.map((r) => [r, { ndcg10: 0, recall5: 0, recall100: 0, mrr10: 0, times: [] as number[] }])) as Record<
    RetrieverName,
    { ndcg10: number; recall5: number; recall100: number; mrr10: number; times: number[] }
  >;
  const perQuery: CollectionEvaluation['perQuery'] = [];
  for (const query of collection.queries) {
    const judged = collection.qrels.get(query.id)!;
    const row = { id: query.id, vector: 0, bm25: 0, hybrid: 0 };
    for (const retriever of RETRIEVERS) {
      const started = performance.now();
      const hits = await retrieve(retriever, index, embedder, query.text, Math.min(EVAL_CHUNK_DEPTH, index.chunks.length), weight);
      sums[retriever].times.push(performance.now() - started);
      const ranked = [...new Set(hits.map((h) => h.doc))].slice(0, EVAL_DEPTH);
      const sum = sums[retriever];
      const ndcg = ndcgAt(ranked, judged, 10);
      sum.ndcg10 += ndcg;
      sum.recall5 += recallAt(ranked, judged, 5);
      sum.recall100 += recallAt(ranked, judged, 100);
      sum.mrr10 += mrrAt(ranked, judged, 10);
      row[retriever] = ndcg;
    }
    perQuery.push(row);
  }
  const n = collection.queries.length;
  const figures = Object.fromEntries(
    RETRIEVERS.map((r) => {
      const sum = sums[r];
      const times = [...sum.times].sort((a, b) => a - b);
      return [r, { ndcg10: sum.ndcg10 / n, recall5: sum.recall5 / n, recall100: sum.recall100 / n, mrr10: sum.mrr10 / n, latencyMs: { median: percentile(times, 0.5), p95: percentile(times, 0.95) } }];
    }),
  ) as Record<RetrieverName, RetrieverFigures>;
  return { documents: collection.corpus.length, chunks: index.chunks.length, queries: n, embedder: embedder.id, vectorWeight: weight, figures, perQuery };
}

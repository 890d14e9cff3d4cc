// The three retrievers over one SearchIndex: vector (faiss), BM25, and their reciprocal-rank fusion (the default).
import { DEFAULT_RELEVANCE_FLOOR, type Embedder } from '../embed/embedder.js';
import { embedTexts } from '../embed/embed-texts.js';
import { EmbeddingError } from '../errors.js';
import { reciprocalRankFusion } from './reciprocal-rank-fusion.js';
import type { SearchIndex } from './search-index.js';

/** Candidates each retriever contributes to the fusion: deep enough that a chunk ranked low by one retriever and high by the other still meets. */
export const FUSION_CANDIDATES = 50;

/** Which retriever ranks the results. */
export type RetrieverName = 'vector' | 'bm25' | 'hybrid';

/** One retrieved chunk. */
export interface SearchHit {
  doc: string;
  chunk_id: string;
  page: number;
  format: string;
  text: string;
  /** The retriever's score: cosine similarity (vector), BM25 score (bm25), or the RRF score (hybrid). */
  score: number;
  /** Position of the chunk in the index (stable while the index is unchanged). */
  row: number;
}

function hit(index: SearchIndex, row: number, score: number): SearchHit {
  const chunk = index.chunks[row]!;
  return { doc: chunk.doc, chunk_id: chunk.chunk_id, page: chunk.page, format: chunk.format, text: chunk.chunk, score, row };
}

async function rankByVector(index: SearchIndex, embedder: Embedder, query: string, k: number): Promise<Array<{ row: number; score: number }>> {
  if (!index.faiss || k <= 0) return [];
  if (embedder.id !== index.model || embedder.dimension !== index.dimension) {
    throw new EmbeddingError(embedder.id, `cannot search an index built with ${index.model} (${index.dimension} dimensions)`);
  }
  const [vector] = await embedTexts(embedder, [query]);
  const { distances, labels } = index.faiss.search(Array.from(vector!), Math.min(k, index.chunks.length));
  const ranked: Array<{ row: number; score: number }> = [];
  labels.forEach((row, i) => {
    if (row >= 0) ranked.push({ row, score: distances[i]! });
  });
  return ranked;
}

/** The `k` chunks whose vectors are most similar to the query's (cosine), best first; no relevance cut. */
export async function vectorSearch(index: SearchIndex, embedder: Embedder, query: string, k: number): Promise<SearchHit[]> {
  return (await rankByVector(index, embedder, query, k)).map(({ row, score }) => hit(index, row, score));
}

/** The `k` best BM25 chunks, best first; only chunks sharing a (non-stopword) term with the query. */
export function bm25Search(index: SearchIndex, query: string, k: number): SearchHit[] {
  return index.bm25().search(query, k).map(({ index: row, score }) => hit(index, row, score));
}

/**
 * Hybrid search: the top 50 of each retriever fused by reciprocal rank (k = 60), best `k` returned. A vector
 * candidate takes part only if it shares a term with the query or its cosine reaches the embedder's relevance
 * floor, so a query about nothing in the documents returns nothing instead of the least-bad chunks.
 */
export async function hybridSearch(index: SearchIndex, embedder: Embedder, query: string, k: number): Promise<SearchHit[]> {
  if (k <= 0 || index.chunks.length === 0) return [];
  const bm25 = index.bm25();
  const floor = embedder.relevanceFloor ?? DEFAULT_RELEVANCE_FLOOR;
  const vectorRanked = (await rankByVector(index, embedder, query, FUSION_CANDIDATES)).filter(
    ({ row, score }) => score >= floor || bm25.sharesTerm(query, row),
  );
  const bm25Ranked = bm25.search(query, FUSION_CANDIDATES);
  const fused = reciprocalRankFusion([vectorRanked.map((r) => r.row), bm25Ranked.map((r) => r.index)]);
  return fused.slice(0, k).map(({ key, score }) => hit(index, key, score));
}

/** Runs the named retriever. */
export async function retrieve(retriever: RetrieverName, index: SearchIndex, embedder: Embedder, query: string, k: number): Promise<SearchHit[]> {
  if (retriever === 'vector') return vectorSearch(index, embedder, query, k);
  if (retriever === 'bm25') return bm25Search(index, query, k);
  return hybridSearch(index, embedder, query, k);
}

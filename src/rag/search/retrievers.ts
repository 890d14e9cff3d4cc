// The three retrievers over one SearchIndex: vector (faiss), BM25, and their reciprocal-rank fusion (the default).
import { DEFAULT_RELEVANCE_FLOOR, DEFAULT_VECTOR_WEIGHT, type Embedder } from '../embed/embedder.js';
import { embedTexts } from '../embed/embed-texts.js';
import { EmbeddingError } from '../errors.js';
import { reciprocalRankFusion, RRF_K } from './reciprocal-rank-fusion.js';
import type { SearchIndex } from './search-index.js';

/** Candidates each retriever contributes to the fusion: deep enough that a chunk ranked low by one retriever and high by the other still meets. */
export const FUSION_CANDIDATES = 50;

/** Which retriever ranks the results ('hybrid' is the fused ranking, the default). */
export type RetrieverName = 'vector' | 'bm25' | 'hybrid';

/** Every retriever, in the order reports list them. */
export const RETRIEVERS: readonly RetrieverName[] = ['vector', 'bm25', 'hybrid'];

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

async function rankByVector(index: SearchIndex, embedder: Embedder, query: string, k: number, exact = false): Promise<Array<{ row: number; score: number }>> {
  if (index.chunks.length === 0 || k <= 0) return [];
  if (embedder.id !== index.model || embedder.dimension !== index.dimension) {
    throw new EmbeddingError(embedder.id, `cannot search an index built with ${index.model} (${index.dimension} dimensions)`);
  }
  const faiss = await index.vectorIndex(embedder);
  const [vector] = await embedTexts(embedder, [query], 'query');
  // The approximate index when the index is large (an IVF search visits a quarter of the cells), else exact.
  const { distances, labels } = (exact ? faiss : (index.ann ?? faiss)).search(Array.from(vector!), Math.min(k, index.chunks.length));
  const ranked: Array<{ row: number; score: number }> = [];
  labels.forEach((row, i) => {
    if (row >= 0) ranked.push({ row, score: distances[i]! });
  });
  return ranked;
}

/**
 * The `k` chunks whose vectors are most similar to the query's (cosine), best first; no relevance cut. Large indexes
 * search their approximate index unless `exact` (for measuring its recall).
 */
export async function vectorSearch(index: SearchIndex, embedder: Embedder, query: string, k: number, exact = false): Promise<SearchHit[]> {
  return (await rankByVector(index, embedder, query, k, exact)).map(({ row, score }) => hit(index, row, score));
}

/** The `k` best BM25 chunks, best first; only chunks sharing a (non-stopword) term with the query. */
export function bm25Search(index: SearchIndex, query: string, k: number): SearchHit[] {
  return index.bm25().search(query, k).map(({ index: row, score }) => hit(index, row, score));
}

/** The vector list's weight in the fusion (BM25's is 1): the profile's `rag.vector_weight`, else the embedder's own. */
export function vectorWeightOf(embedder: Embedder, override?: number): number {
  return override ?? embedder.vectorWeight ?? DEFAULT_VECTOR_WEIGHT;
}

/**
 * Whether an index built by `embedder` stores its vectors: always for a model's (computing them again means asking the
 * model), for an in-process embedder only when the fused search uses them (weight above 0).
 */
export function storesVectors(embedder: Embedder, vectorWeight?: number): boolean {
  return !embedder.inProcess || vectorWeightOf(embedder, vectorWeight) > 0;
}

/**
 * Hybrid search: the top `max(50, k)` of each retriever fused by weighted reciprocal rank (k = 60; BM25 counts 1,
 * the vector list `vectorWeight`), best `k` returned. Weight 0 is BM25 alone, and the query is not embedded. A
 * vector candidate takes part only if it shares a term with the query or its cosine reaches the embedder's
 * relevance floor, so a query about nothing in the documents returns nothing instead of the least-bad chunks.
 */
export async function hybridSearch(index: SearchIndex, embedder: Embedder, query: string, k: number, vectorWeight = vectorWeightOf(embedder)): Promise<SearchHit[]> {
  if (k <= 0 || index.chunks.length === 0) return [];
  const bm25 = index.bm25();
  const depth = Math.max(FUSION_CANDIDATES, k);
  if (vectorWeight <= 0) return bm25Search(index, query, k);
  const bm25Ranked = bm25.search(query, depth);
  const floor = embedder.relevanceFloor ?? DEFAULT_RELEVANCE_FLOOR;
  const vectorRanked = (await rankByVector(index, embedder, query, depth)).filter(({ row, score }) => score >= floor || bm25.sharesTerm(query, row));
  const fused = reciprocalRankFusion([vectorRanked.map((r) => r.row), bm25Ranked.map((r) => r.index)], RRF_K, [vectorWeight, 1]);
  return fused.slice(0, k).map(({ key, score }) => hit(index, key, score));
}

/** Runs the named retriever; `vectorWeight` only matters to 'hybrid'. */
export async function retrieve(
  retriever: RetrieverName,
  index: SearchIndex,
  embedder: Embedder,
  query: string,
  k: number,
  vectorWeight?: number,
): Promise<SearchHit[]> {
  if (retriever === 'vector') return vectorSearch(index, embedder, query, k);
  if (retriever === 'bm25') return bm25Search(index, query, k);
  return hybridSearch(index, embedder, query, k, vectorWeight);
}

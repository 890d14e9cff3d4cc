// Recall@k of the three retrievers on question → expected document pairs (for the retrieval quality test).
import type { Embedder } from '../../src/rag/embed/embedder.js';
import { retrieve, RETRIEVERS, type RetrieverName } from '../../src/rag/search/retrievers.js';
import type { SearchIndex } from '../../src/rag/search/search-index.js';

/** One labelled question: `expected` is the document (as named in the index) that answers it. */
export interface RetrievalPair {
  question: string;
  expected: string;
}

export type RecallFigures = Record<RetrieverName, number>;

/**
 * Share of questions whose expected document is among the documents of the top `k` chunks, per retriever.
 * `misses` lists the questions each retriever missed (for looking into failures).
 */
export async function evaluateRetrieval({
  index,
  embedder,
  pairs,
  k = 5,
}: {
  index: SearchIndex;
  embedder: Embedder;
  pairs: readonly RetrievalPair[];
  k?: number;
}): Promise<{ recall: RecallFigures; misses: Record<RetrieverName, string[]> }> {
  const recall: RecallFigures = { vector: 0, bm25: 0, hybrid: 0 };
  const misses: Record<RetrieverName, string[]> = { vector: [], bm25: [], hybrid: [] };
  for (const retriever of RETRIEVERS) {
    let found = 0;
    for (const pair of pairs) {
      const hits = await retrieve(retriever, index, embedder, pair.question, k);
      if (hits.some((hit) => hit.doc === pair.expected)) found++;
      else misses[retriever].push(pair.question);
    }
    recall[retriever] = pairs.length ? found / pairs.length : 0;
  }
  return { recall, misses };
}

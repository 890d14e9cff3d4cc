// The embedder contract shared by the built-in lexical embedder and the LLM-backed one.

/** Turns texts into vectors of one fixed dimension. */
export interface Embedder {
  /** Model id recorded in the index, e.g. `builtin:lexical-v2-1024` or `ollama:nomic-embed-text`; a change forces a rebuild. */
  readonly id: string;
  /** Length of every vector `embed` returns. */
  readonly dimension: number;
  /**
   * Lowest cosine similarity (vectors are L2-normalised before indexing) at which a vector hit counts as
   * relevant on its own, without sharing a term with the query. Default 0.5 when absent.
   */
  readonly relevanceFloor?: number;
  /**
   * Weight of this embedder's ranking in the fused search, BM25's being 1 (0: the fused search is BM25 alone).
   * Default {@link DEFAULT_VECTOR_WEIGHT} when absent.
   */
  readonly vectorWeight?: number;
  /**
   * True when vectors are computed in this process with no model, cheaply enough to compute again: an index built
   * with it stores no vectors while the fused search gives them no weight, and a vector search computes them then.
   */
  readonly inProcess?: boolean;
  /** One vector per text, in order. May throw (network, model missing): callers report it per file. */
  embed(texts: string[]): Promise<Float32Array[] | number[][]>;
}

/** A vector hit needs this cosine similarity to count without a shared term, for embedders that do not say. */
export const DEFAULT_RELEVANCE_FLOOR = 0.5;

/**
 * Fusion weight of a semantic embedding model (Ollama, Gemini): equal to BM25's, the setting under which
 * reciprocal rank fusion of a dense retriever and BM25 beats both on BEIR (Cormack et al. 2009; Thakur et al. 2021).
 */
export const DEFAULT_VECTOR_WEIGHT = 1;

/** Largest fusion weight accepted (profiles.yaml `rag.vector_weight`, the documents server's CORTEX_VECTOR_WEIGHT). */
export const MAX_VECTOR_WEIGHT = 10;

/** Scales `vector` to unit length in place (a zero vector stays zero) and returns it. */
export function normaliseVector(vector: Float32Array): Float32Array {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) sum += vector[i]! * vector[i]!;
  if (sum > 0) {
    const scale = 1 / Math.sqrt(sum);
    for (let i = 0; i < vector.length; i++) vector[i]! *= scale;
  }
  return vector;
}

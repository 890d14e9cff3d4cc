// The embedder contract shared by the built-in lexical embedder and the LLM-backed one.

export type { Embedder } from '../../llm/types.js';

/** A vector hit needs this cosine similarity to count without a shared term, for embedders that do not say. */
export const DEFAULT_RELEVANCE_FLOOR = 0.5;

/**
 * Fusion weight of a semantic embedding model (Ollama, Gemini): equal to BM25's, the setting under which
 * reciprocal rank fusion of a dense retriever and BM25 beats both on BEIR (Cormack et al. 2009; Thakur et al. 2021).
 */
export const DEFAULT_VECTOR_WEIGHT = 1;

export { MAX_VECTOR_WEIGHT } from '../../config/profiles.js';

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

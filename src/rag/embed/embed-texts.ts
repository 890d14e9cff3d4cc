// Embeds texts in bounded batches and returns unit-length Float32 vectors checked against the embedder's dimension.
import { EmbeddingError } from '../errors.js';
import type { Embedder } from './embedder.js';
import type { EmbedPurpose } from '../../llm/types.js';
import { normaliseVector } from './embedder.js';

/** Texts per embed() call: bounds request size for model embedders and memory for the built-in one. */
export const EMBED_BATCH_TEXTS = 64;

function allFinite(vector: Float32Array): boolean {
  for (let i = 0; i < vector.length; i++) if (!Number.isFinite(vector[i]!)) return false;
  return true;
}

/**
 * One unit-length vector per text, as Float32Arrays of `embedder.dimension`; `purpose` as Embedder.embed's.
 * @throws EmbeddingError for a wrong count, a wrong length or a non-finite value; whatever embed() throws.
 */
export async function embedTexts(embedder: Embedder, texts: readonly string[], purpose: EmbedPurpose = 'document'): Promise<Float32Array[]> {
  const out: Float32Array[] = [];
  for (let start = 0; start < texts.length; start += EMBED_BATCH_TEXTS) {
    const batch = texts.slice(start, start + EMBED_BATCH_TEXTS);
    const vectors = await embedder.embed(batch, purpose);
    if (vectors.length !== batch.length) throw new EmbeddingError(embedder.id, `returned ${vectors.length} vectors for ${batch.length} texts`);
    for (const raw of vectors) {
      if (raw.length !== embedder.dimension) throw new EmbeddingError(embedder.id, `returned a vector of length ${raw.length}, expected ${embedder.dimension}`);
      // The built-in embedder already returns Float32Arrays of its own: no copy needed.
      const vector = raw instanceof Float32Array ? raw : Float32Array.from(raw);
      if (!allFinite(vector)) throw new EmbeddingError(embedder.id, 'returned a vector holding a non-finite number');
      out.push(normaliseVector(vector));
    }
  }
  return out;
}

/**
 * Embeds `texts` (checked as embedTexts checks them) into the rows of the row-major `into`, in order, one batch at a
 * time, so all the vectors never exist twice.
 */
export async function embedRows(embedder: Embedder, texts: readonly string[], into: Float32Array): Promise<void> {
  for (let start = 0; start < texts.length; start += EMBED_BATCH_TEXTS) {
    const vectors = await embedTexts(embedder, texts.slice(start, start + EMBED_BATCH_TEXTS));
    vectors.forEach((vector, i) => into.set(vector, (start + i) * embedder.dimension));
  }
}

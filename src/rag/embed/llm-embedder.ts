// Adapts LlmClient.embed (Ollama /api/embed, Gemini embedContent) to the Embedder contract.
import type { ModelConfig } from '../../config/models.js';
import { createLlmClient } from '../../llm/select.js';
import type { LlmClient } from '../../llm/types.js';
import { ConfigError } from '../../errors.js';
import { EmbeddingError } from '../errors.js';
import type { Embedder } from './embedder.js';

/** Text embedded once to learn the model's dimension when it is not given. */
const DIMENSION_PROBE_TEXT = 'dimension probe';

export interface LlmEmbedderOptions {
  llm: LlmClient;
  /** Id recorded in the index, e.g. `ollama:nomic-embed-text`. */
  id: string;
  /** Vector length; when absent, one probe text is embedded to learn it (so this call can fail like any request). */
  dimension?: number;
  /** Cosine similarity at which a vector hit counts without a shared term. Default 0.5. */
  relevanceFloor?: number;
}

/**
 * An Embedder over `llm.embed`. Every answer is checked: one vector per text, each of `dimension` finite numbers.
 * @throws LlmRequestError from the client (unreachable, no such model), EmbeddingError for malformed answers.
 */
export async function createLlmEmbedder({ llm, id, dimension, relevanceFloor = 0.5 }: LlmEmbedderOptions): Promise<Embedder> {
  const check = (vectors: number[][], expected: number, size: number | undefined): number[][] => {
    if (vectors.length !== expected) throw new EmbeddingError(id, `returned ${vectors.length} vectors for ${expected} texts`);
    for (const vector of vectors) {
      if (size !== undefined && vector.length !== size) throw new EmbeddingError(id, `returned a vector of length ${vector.length}, expected ${size}`);
      if (!vector.every(Number.isFinite)) throw new EmbeddingError(id, 'returned a vector holding a non-finite number');
    }
    return vectors;
  };
  let size = dimension;
  if (size === undefined) {
    const [probe] = check((await llm.embed([DIMENSION_PROBE_TEXT])).vectors, 1, undefined);
    size = probe!.length;
    if (size === 0) throw new EmbeddingError(id, 'returned an empty vector');
  }
  const fixed = size;
  return {
    id,
    dimension: fixed,
    relevanceFloor,
    embed: async (texts) => (texts.length === 0 ? [] : check((await llm.embed(texts)).vectors, texts.length, fixed)),
  };
}

/**
 * The Embedder for a models.yaml entry's `embedding_model` (id `<type>:<embedding_model>`, e.g. `ollama:nomic-embed-text`).
 * @throws ConfigError when the entry has no embedding_model; whatever createLlmClient and createLlmEmbedder throw.
 */
export async function createModelEmbedder(config: ModelConfig, env: NodeJS.ProcessEnv): Promise<Embedder> {
  if (!config.embedding_model) {
    throw new ConfigError('models.yaml', 'embedding_model', `model "${config.model}" needs an embedding_model to be used for embeddings`);
  }
  return createLlmEmbedder({ llm: createLlmClient(config, env), id: `${config.type}:${config.embedding_model}` });
}

// Embedding in batches the provider accepts, shared by the Gemini and Ollama clients.
import { LlmRequestError } from '../errors.js';
import type { EmbedResult } from './types.js';

/**
 * Embeds `texts` in batches of at most `batchMax`, in order, with the model's `embedding_model`.
 * `embedBatch` returns the batch's vectors (already checked) and its latency.
 * @throws LlmRequestError when the model has no embedding model, or from embedBatch.
 */
export async function embedInBatches({
  provider,
  model,
  embeddingModel,
  texts,
  batchMax,
  embedBatch,
}: {
  provider: string;
  model: string;
  embeddingModel: string | undefined;
  texts: string[];
  batchMax: number;
  embedBatch: (embeddingModel: string, batch: string[]) => Promise<{ vectors: number[][]; latencyMs: number }>;
}): Promise<EmbedResult> {
  if (!embeddingModel) throw new LlmRequestError(provider, `model "${model}" has no embedding_model in models.yaml`);
  const vectors: number[][] = [];
  let latencyMs = 0;
  for (let start = 0; start < texts.length; start += batchMax) {
    const result = await embedBatch(embeddingModel, texts.slice(start, start + batchMax));
    vectors.push(...result.vectors);
    latencyMs += result.latencyMs;
  }
  return { vectors, model: embeddingModel, latencyMs };
}

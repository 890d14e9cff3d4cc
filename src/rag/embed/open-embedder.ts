// The one place an embedding setting (from the profile or CORTEX_EMBEDDING) becomes an Embedder.
import type { EmbeddingSetting } from '../indexer-settings.js';
import type { Embedder } from './embedder.js';
import { createLexicalEmbedder } from './lexical-embedder.js';
import { createModelEmbedder } from './llm-embedder.js';

/**
 * The Embedder `setting` names: the offline lexical embedder, or a model's `embedding_model` (id
 * `<type>:<embedding_model>`, e.g. `ollama:nomic-embed-text`) reached with the hosts and keys in `env`. A model
 * embedder embeds one probe text to learn its dimension, so this can fail when the model is unreachable.
 * @throws ConfigError for a model without embedding_model; LlmUnavailableError / LlmRequestError from the model.
 */
export async function openEmbedder(setting: EmbeddingSetting, env: NodeJS.ProcessEnv): Promise<Embedder> {
  if (setting.kind === 'builtin') return createLexicalEmbedder(setting.dimension === undefined ? {} : { dimension: setting.dimension });
  return createModelEmbedder(setting.model, env);
}

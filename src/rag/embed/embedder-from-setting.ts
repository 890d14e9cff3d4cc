// Reads an embedding setting string (CORTEX_EMBEDDING): builtin, builtin:<dimension>, ollama:<model>, gemini:<model> or openai:<model>.
import type { ModelConfig } from '../../config/models.js';
import { ConfigError } from '../../errors.js';
import type { Embedder } from './embedder.js';
import { createLexicalEmbedder } from './lexical-embedder.js';
import { createModelEmbedder } from './llm-embedder.js';

const EXPECTED = 'builtin, builtin:<dimension>, ollama:<model>, gemini:<model> or openai:<model>';

/** Request timeout for embedding calls made through a setting (no models.yaml entry to take it from). */
export const SETTING_EMBED_TIMEOUT_MS = 120_000;
/** Retries of a failed embedding request made through a setting. */
export const SETTING_EMBED_MAX_RETRIES = 3;

/**
 * The Embedder a setting names. `builtin` (or empty) is the offline lexical embedder; `ollama:nomic-embed-text`
 * talks to OLLAMA_HOST; `gemini:text-embedding-004` needs GEMINI_API_KEY (GEMINI_BASE_URL optional). Model-backed
 * embedders embed one probe text to learn their dimension, so this can fail when the model is unreachable.
 * @param source Where the setting came from, for error messages (e.g. "CORTEX_EMBEDDING").
 * @throws ConfigError for an unreadable setting; LlmUnavailableError / LlmRequestError from the model.
 */
export async function embedderFromSetting(setting: string | undefined, env: NodeJS.ProcessEnv, source = 'CORTEX_EMBEDDING'): Promise<Embedder> {
  const value = (setting ?? '').trim();
  if (value === '' || value === 'builtin') return createLexicalEmbedder();
  const colon = value.indexOf(':');
  const kind = colon < 0 ? value : value.slice(0, colon);
  const name = colon < 0 ? '' : value.slice(colon + 1).trim();
  if (kind === 'builtin') {
    const dimension = Number(name);
    if (!/^\d+$/u.test(name)) throw new ConfigError('environment', source, `${EXPECTED} (got "${value}")`);
    try {
      return createLexicalEmbedder({ dimension });
    } catch (err) {
      throw new ConfigError('environment', source, (err as Error).message, { cause: err });
    }
  }
  if ((kind !== 'ollama' && kind !== 'gemini' && kind !== 'openai') || !name) throw new ConfigError('environment', source, `${EXPECTED} (got "${value}")`);
  const config: ModelConfig = {
    type: kind,
    model: name,
    embedding_model: name,
    timeout_ms: SETTING_EMBED_TIMEOUT_MS,
    max_retries: SETTING_EMBED_MAX_RETRIES,
  };
  return createModelEmbedder(config, env);
}

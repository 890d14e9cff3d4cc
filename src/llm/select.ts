// Picks the text model: a models.yaml key, or `auto` (Gemini if a key is set, else a running Ollama, else a clear error).
import type { ModelConfig } from '../config/models.js';
import { ConfigError, LlmUnavailableError } from '../errors.js';
import { createGeminiClient, findGeminiKey } from './gemini-client.js';
import { createOllamaClient } from './ollama-client.js';
import { resolveOllamaHost } from './ollama-host.js';
import type { RetryTuning } from './retry.js';
import type { LlmClient } from './types.js';

/** How long `auto` waits for Ollama's /api/version: a local server answers in milliseconds. */
export const OLLAMA_PROBE_TIMEOUT_MS = 1_500;

/** Used by `auto` when models.yaml has no gemini entry. */
export const DEFAULT_GEMINI_MODEL: ModelConfig = {
  type: 'gemini',
  model: 'gemini-2.0-flash',
  embedding_model: 'text-embedding-004',
  timeout_ms: 120_000,
  max_retries: 3,
};

/** Used by `auto` when models.yaml has no ollama entry. */
export const DEFAULT_OLLAMA_MODEL: ModelConfig = {
  type: 'ollama',
  model: 'qwen2.5-coder:7b',
  embedding_model: 'nomic-embed-text',
  timeout_ms: 120_000,
  max_retries: 3,
};

/**
 * Creates the client for a models.yaml entry, by its `type`.
 * @throws LlmUnavailableError (Gemini without a key), ConfigError (an unreadable Ollama host).
 */
export function createLlmClient(config: ModelConfig, env: NodeJS.ProcessEnv, tuning?: RetryTuning): LlmClient {
  return config.type === 'gemini' ? createGeminiClient(config, env, tuning) : createOllamaClient(config, env, tuning);
}

/** True when an Ollama server answers GET {host}/api/version within `timeoutMs`. Never throws. */
export async function probeOllama(host: string, timeoutMs = OLLAMA_PROBE_TIMEOUT_MS): Promise<boolean> {
  try {
    const response = await fetch(`${host}/api/version`, { signal: AbortSignal.timeout(timeoutMs) });
    await response.body?.cancel();
    return response.ok;
  } catch {
    return false;
  }
}

export interface ResolveTextModelOptions {
  /** profiles.yaml `llm.text_generation` or `--model`: a models.yaml key, or 'auto'. */
  setting: string;
  /** The `models` map of models.yaml. */
  models: Record<string, ModelConfig>;
  /** Path of the models file, for error messages. */
  modelsFile: string;
  env: NodeJS.ProcessEnv;
  /** Asks whether Ollama answers at a host (default: probeOllama). */
  probeOllama?: (host: string) => Promise<boolean>;
  tuning?: RetryTuning;
}

/**
 * Chooses the text model and creates its client. `auto`: Gemini when a key for the first gemini
 * entry (or GEMINI_API_KEY / GOOGLE_API_KEY) is set; else Ollama when it answers at its host
 * (first ollama entry, else built-in defaults); else LlmUnavailableError saying how to set up either.
 * @returns the models.yaml key (or the built-in default's model name) and the client.
 * @throws ConfigError when `setting` is not a key of models.yaml; LlmUnavailableError as above.
 */
export async function resolveTextModel(options: ResolveTextModelOptions): Promise<{ key: string; client: LlmClient }> {
  const { setting, models, modelsFile, env, probeOllama: probe = probeOllama, tuning } = options;
  if (setting !== 'auto') {
    const config = models[setting];
    if (!config) {
      const known = Object.keys(models).join(', ') || 'none';
      throw new ConfigError(modelsFile, `models.${setting}`, `no such model (defined: ${known}; or use "auto")`);
    }
    return { key: setting, client: createLlmClient(config, env, tuning) };
  }

  const gemini = firstOfType(models, 'gemini') ?? { key: DEFAULT_GEMINI_MODEL.model, config: DEFAULT_GEMINI_MODEL };
  if (findGeminiKey(gemini.config, env)) {
    return { key: gemini.key, client: createGeminiClient(gemini.config, env, tuning) };
  }
  const ollama = firstOfType(models, 'ollama') ?? { key: DEFAULT_OLLAMA_MODEL.model, config: DEFAULT_OLLAMA_MODEL };
  const host = resolveOllamaHost(ollama.config.base_url, env);
  if (await probe(host)) {
    return { key: ollama.key, client: createOllamaClient(ollama.config, env, tuning) };
  }
  throw new LlmUnavailableError(
    `No LLM is available: export GEMINI_API_KEY=<your key> to use Gemini, or install Ollama (https://ollama.com), ` +
      `run \`ollama pull ${ollama.config.model}\` and \`ollama serve\`, or set OLLAMA_HOST to a running server ` +
      `(nothing answered at ${host}).`,
  );
}

function firstOfType(
  models: Record<string, ModelConfig>,
  type: ModelConfig['type'],
): { key: string; config: ModelConfig } | undefined {
  const entry = Object.entries(models).find(([, config]) => config.type === type);
  return entry ? { key: entry[0], config: entry[1] } : undefined;
}

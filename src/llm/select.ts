// Picks the text model: a models.yaml key, any provider model by name, or `auto` (Gemini if a key is set, else a running Ollama).
import type { ModelConfig } from '../config/models.js';
import { ConfigError, LlmUnavailableError } from '../errors.js';
import { sameModel, textModels } from './check-model.js';
import { createGeminiClient, findGeminiKey } from './gemini-client.js';
import { createOllamaClient } from './ollama-client.js';
import { resolveOllamaHost } from './ollama-host.js';
import type { StreamTuning } from './read-stream.js';
import type { RetryTuning } from './retry.js';
import type { LlmClient, ProviderModel } from './types.js';

/** How long `auto` waits for Ollama's /api/version: a local server answers in milliseconds. */
export const OLLAMA_PROBE_TIMEOUT_MS = 1_500;
/** How long `auto` waits for Ollama's /api/tags when it checks that the default model is pulled. */
export const OLLAMA_TAGS_TIMEOUT_MS = 5_000;

/** Used when models.yaml has no gemini entry. Google's `-latest` alias follows the current Flash model, so it does not rot. */
export const DEFAULT_GEMINI_MODEL: ModelConfig = {
  type: 'gemini',
  model: 'gemini-flash-latest',
  embedding_model: 'gemini-embedding-001',
  timeout_ms: 120_000,
  max_retries: 3,
};

/** Used when models.yaml has no ollama entry. */
export const DEFAULT_OLLAMA_MODEL: ModelConfig = {
  type: 'ollama',
  model: 'qwen2.5-coder:7b',
  embedding_model: 'nomic-embed-text',
  timeout_ms: 120_000,
  max_retries: 3,
};

/** The providers a `provider:model` setting may name. */
export const PROVIDERS = ['gemini', 'ollama'] as const;

type Tuning = RetryTuning & StreamTuning;

/**
 * Creates the client for a models.yaml entry, by its `type`; `setting` says where its model name was set (for messages).
 * @throws LlmUnavailableError (Gemini without a key), ConfigError (an unreadable Ollama host).
 */
export function createLlmClient(config: ModelConfig, env: NodeJS.ProcessEnv, tuning?: Tuning, setting?: string): LlmClient {
  const options = setting ? { setting } : {};
  return config.type === 'gemini' ? createGeminiClient(config, env, tuning, options) : createOllamaClient(config, env, tuning, options);
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
  /**
   * profiles.yaml `llm.text_generation` or `--model`: a models.yaml key, 'auto', `provider:model`
   * (`ollama:llama3.1:8b`, `gemini:gemini-2.5-flash`), or a bare provider model name (`llama3.1:8b`, `gemini-2.5-pro`).
   */
  setting: string;
  /** The `models` map of models.yaml. */
  models: Record<string, ModelConfig>;
  /** Path of the models file, for error messages. */
  modelsFile: string;
  env: NodeJS.ProcessEnv;
  /** Asks whether Ollama answers at a host (default: probeOllama). */
  probeOllama?: (host: string) => Promise<boolean>;
  tuning?: Tuning;
}

/** The chosen model: its name for display, the client, and why `auto` chose something else than its default. */
export interface ResolvedTextModel {
  key: string;
  client: LlmClient;
  /** Plain words for the user, e.g. that the default Ollama model is not pulled and which one is used instead. */
  note?: string;
}

/** A setting read: a models.yaml entry, or a provider model by name (on the provider's first entry, else the built-in default). */
export function modelForSetting(
  setting: string,
  models: Record<string, ModelConfig>,
  modelsFile: string,
): { key: string; config: ModelConfig; setting: string } {
  const entry = models[setting];
  if (entry) return { key: setting, config: entry, setting: `models.${setting}.model in ${modelsFile}, or --model` };
  const prefixed = /^(gemini|ollama):(.+)$/.exec(setting);
  const type = prefixed ? (prefixed[1] as ModelConfig['type']) : bareProvider(setting);
  const name = prefixed ? prefixed[2]! : setting;
  if (!type) {
    const known = Object.keys(models).join(', ') || 'none';
    throw new ConfigError(
      modelsFile,
      `models.${setting}`,
      `no such model (defined: ${known}; or "auto", or a provider model such as ollama:llama3.1:8b or gemini:gemini-flash-latest)`,
    );
  }
  const base = firstOfType(models, type)?.config ?? (type === 'gemini' ? DEFAULT_GEMINI_MODEL : DEFAULT_OLLAMA_MODEL);
  return { key: `${type}:${name}`, config: { ...base, model: name }, setting: `--model or llm.text_generation (now "${setting}")` };
}

/** The provider of a bare model name: gemini-… is Gemini; a name with a tag or a namespace (llama3.1:8b, user/model) is Ollama. */
function bareProvider(name: string): ModelConfig['type'] | undefined {
  if (/^(models\/)?gemini-/.test(name)) return 'gemini';
  if (/[:/]/.test(name)) return 'ollama';
  return undefined;
}

/**
 * Chooses the text model and creates its client. A key, `provider:model` or model name: that model. `auto`: Gemini
 * when a key for the first gemini entry (or GEMINI_API_KEY / GOOGLE_API_KEY) is set; else Ollama when it answers
 * at its host (first ollama entry, else built-in defaults), falling back to a pulled model (with a note) when the
 * default one is not pulled; else LlmUnavailableError saying how to set up either.
 * @throws ConfigError when `setting` names nothing; LlmUnavailableError as above.
 */
export async function resolveTextModel(options: ResolveTextModelOptions): Promise<ResolvedTextModel> {
  const { setting, models, modelsFile, env, probeOllama: probe = probeOllama, tuning } = options;
  if (setting !== 'auto') {
    const chosen = modelForSetting(setting, models, modelsFile);
    return { key: chosen.key, client: createLlmClient(chosen.config, env, tuning, chosen.setting) };
  }

  const gemini = firstOfType(models, 'gemini');
  const geminiConfig = gemini?.config ?? DEFAULT_GEMINI_MODEL;
  if (findGeminiKey(geminiConfig, env)) {
    const where = gemini ? `models.${gemini.key}.model in ${modelsFile}, or --model` : `--model (e.g. gemini:gemini-2.5-flash), or a gemini entry in ${modelsFile}`;
    return { key: gemini?.key ?? geminiConfig.model, client: createGeminiClient(geminiConfig, env, tuning, { setting: where }) };
  }
  const ollama = firstOfType(models, 'ollama');
  const ollamaConfig = ollama?.config ?? DEFAULT_OLLAMA_MODEL;
  const host = resolveOllamaHost(ollamaConfig.base_url, env);
  if (await probe(host)) {
    const where = ollama ? `models.${ollama.key}.model in ${modelsFile}, or --model` : `--model (e.g. ollama:llama3.1:8b), or an ollama entry in ${modelsFile}`;
    const client = createOllamaClient(ollamaConfig, env, tuning, { setting: where });
    const fallback = await pulledFallback(client, ollamaConfig.model);
    if (fallback) {
      return {
        key: `ollama:${fallback}`,
        client: createOllamaClient({ ...ollamaConfig, model: fallback }, env, tuning, { setting: where }),
        note: `${ollamaConfig.model} is not pulled, so auto uses ${fallback}, a model this Ollama has (run \`ollama pull ${ollamaConfig.model}\` to use the default).`,
      };
    }
    return { key: ollama?.key ?? ollamaConfig.model, client };
  }
  throw new LlmUnavailableError(
    `No LLM is available: export GEMINI_API_KEY=<your key> to use Gemini, or install Ollama (https://ollama.com), ` +
      `start it with \`ollama serve\` and then run \`ollama pull ${ollamaConfig.model}\`, or set OLLAMA_HOST to a running server ` +
      `(nothing answered at ${host}).`,
  );
}

/** A pulled model to use when `wanted` is not pulled; undefined when it is, when none is, or the list cannot be read. */
async function pulledFallback(client: LlmClient, wanted: string): Promise<string | undefined> {
  const pulled = await client.listModels?.({ signal: AbortSignal.timeout(OLLAMA_TAGS_TIMEOUT_MS) }).catch(() => undefined);
  if (!pulled || pulled.some((m) => sameModel('ollama', m.name, wanted))) return undefined;
  return pickPulledModel(pulled);
}

/** The pulled model `auto` prefers: a coding model, else the first text model listed (Ollama lists the newest first). */
export function pickPulledModel(models: ProviderModel[]): string | undefined {
  const text = textModels(models);
  return (text.find((m) => /coder/i.test(m.name)) ?? text[0])?.name;
}

function firstOfType(
  models: Record<string, ModelConfig>,
  type: ModelConfig['type'],
): { key: string; config: ModelConfig } | undefined {
  const entry = Object.entries(models).find(([, config]) => config.type === type);
  return entry ? { key: entry[0], config: entry[1] } : undefined;
}

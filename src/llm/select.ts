// Picks the text model: a models.yaml key, any provider model by name, or `auto` (Gemini, Anthropic, OpenAI-compatible by key, else a running Ollama).
import type { ModelConfig } from '../config/models.js';
import { ConfigError, LlmUnavailableError } from '../errors.js';
import { sameModel, textModels } from './check-model.js';
import { ANTHROPIC_DEFAULT_BASE_URL, anthropicBaseUrl, createAnthropicClient, findAnthropicKey } from './anthropic-client.js';
import { createGeminiClient, findGeminiKey } from './gemini-client.js';
import { createOllamaClient } from './ollama-client.js';
import { OPENAI_DEFAULT_BASE_URL, createOpenAiClient, findOpenAiKey, openAiBaseUrl } from './openai-client.js';
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

/** Used when models.yaml has no openai entry and the server is OpenAI's own. */
export const DEFAULT_OPENAI_MODEL: ModelConfig = {
  type: 'openai',
  model: 'gpt-4.1-mini',
  embedding_model: 'text-embedding-3-small',
  timeout_ms: 120_000,
  max_retries: 3,
};

/** Used when models.yaml has no anthropic entry and /v1/models cannot say which Sonnet is current (the newest Sonnet @anthropic-ai/sdk 1.14 names). */
export const DEFAULT_ANTHROPIC_MODEL: ModelConfig = {
  type: 'anthropic',
  model: 'claude-sonnet-5-5',
  timeout_ms: 120_000,
  max_retries: 3,
};

/** How long `auto` waits for an OpenAI-compatible or Anthropic /v1/models when it must learn which model to use. */
export const MODEL_LIST_TIMEOUT_MS = 5_000;


const DEFAULTS: Record<ModelConfig['type'], ModelConfig> = {
  gemini: DEFAULT_GEMINI_MODEL,
  ollama: DEFAULT_OLLAMA_MODEL,
  openai: DEFAULT_OPENAI_MODEL,
  anthropic: DEFAULT_ANTHROPIC_MODEL,
};

type Tuning = RetryTuning & StreamTuning;

/**
 * Creates the client for a models.yaml entry, by its `type`; `setting` says where its model name was set (for messages).
 * @throws LlmUnavailableError (Gemini, Anthropic or OpenAI's own API without a key), ConfigError (an unreadable Ollama host).
 */
export function createLlmClient(config: ModelConfig, env: NodeJS.ProcessEnv, tuning?: Tuning, setting?: string): LlmClient {
  const options = setting ? { setting } : {};
  switch (config.type) {
    case 'gemini':
      return createGeminiClient(config, env, tuning, options);
    case 'openai':
      return createOpenAiClient(config, env, tuning, options);
    case 'anthropic':
      return createAnthropicClient(config, env, tuning, options);
    default:
      return createOllamaClient(config, env, tuning, options);
  }
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
   * (`ollama:llama3.1:8b`, `gemini:gemini-2.5-flash`, `openai:gpt-4.1-mini`, `anthropic:claude-sonnet-5-5`), or a bare
   * provider model name (`llama3.1:8b`, `gemini-2.5-pro`, `claude-…`).
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
  const prefixed = /^(gemini|ollama|openai|anthropic):(.+)$/.exec(setting);
  const type = prefixed ? (prefixed[1] as ModelConfig['type']) : bareProvider(setting);
  const name = prefixed ? prefixed[2]! : setting;
  if (!type) {
    const known = Object.keys(models).join(', ') || 'none';
    throw new ConfigError(
      modelsFile,
      `models.${setting}`,
      `no such model (defined: ${known}; or "auto", or a provider model such as ollama:llama3.1:8b, gemini:gemini-flash-latest, openai:gpt-4.1-mini or anthropic:claude-sonnet-5-5)`,
    );
  }
  const base = firstOfType(models, type)?.config ?? DEFAULTS[type];
  return { key: `${type}:${name}`, config: { ...base, model: name }, setting: `--model or llm.text_generation (now "${setting}")` };
}

/**
 * The provider of a bare model name: gemini-… is Gemini, claude-… Anthropic; a name with a tag or a namespace
 * (llama3.1:8b, user/model) is Ollama. Other OpenAI-compatible models need the openai: prefix (a bare name is ambiguous).
 */
function bareProvider(name: string): ModelConfig['type'] | undefined {
  if (/^(models\/)?gemini-/.test(name)) return 'gemini';
  if (/^claude-[^:/]+$/.test(name)) return 'anthropic';
  if (/[:/]/.test(name)) return 'ollama';
  return undefined;
}

/**
 * Chooses the text model and creates its client. A key, `provider:model` or model name: that model. `auto`, first
 * that is set up: Gemini (a key for the first gemini entry, or GEMINI_API_KEY / GOOGLE_API_KEY); Anthropic (a key, or
 * ANTHROPIC_BASE_URL); an OpenAI-compatible server (a key, or OPENAI_BASE_URL, whose model list answers); else Ollama
 * when it answers at its host, falling back to a pulled model (with a note) when the default one is not pulled;
 * else LlmUnavailableError saying how to set up any of them.
 * @throws ConfigError when `setting` names nothing; LlmUnavailableError as above.
 */
export async function resolveTextModel(options: ResolveTextModelOptions): Promise<ResolvedTextModel> {
  const { setting, models, modelsFile, env, probeOllama: probe = probeOllama, tuning } = options;
  if (setting !== 'auto') {
    const chosen = modelForSetting(setting, models, modelsFile);
    return { key: chosen.key, client: createLlmClient(chosen.config, env, tuning, chosen.setting) };
  }
  const where = (entry: { key: string } | undefined, type: string, example: string) =>
    entry ? `models.${entry.key}.model in ${modelsFile}, or --model` : `--model (e.g. ${type}:${example}), or a ${type} entry in ${modelsFile}`;

  const gemini = firstOfType(models, 'gemini');
  const geminiConfig = gemini?.config ?? DEFAULT_GEMINI_MODEL;
  if (findGeminiKey(geminiConfig, env)) {
    return { key: gemini?.key ?? geminiConfig.model, client: createGeminiClient(geminiConfig, env, tuning, { setting: where(gemini, 'gemini', 'gemini-2.5-flash') }) };
  }
  const hosted = (await autoAnthropic(models, env, tuning, where)) ?? (await autoOpenAi(models, env, tuning, where));
  if (hosted) return hosted;

  const ollama = firstOfType(models, 'ollama');
  const ollamaConfig = ollama?.config ?? DEFAULT_OLLAMA_MODEL;
  const host = resolveOllamaHost(ollamaConfig.base_url, env);
  if (await probe(host)) {
    const setting = where(ollama, 'ollama', 'llama3.1:8b');
    const client = createOllamaClient(ollamaConfig, env, tuning, { setting });
    const fallback = await pulledFallback(client, ollamaConfig.model);
    if (fallback) {
      return {
        key: `ollama:${fallback}`,
        client: createOllamaClient({ ...ollamaConfig, model: fallback }, env, tuning, { setting }),
        note: `${ollamaConfig.model} is not pulled, so auto uses ${fallback}, a model this Ollama has (run \`ollama pull ${ollamaConfig.model}\` to use the default).`,
      };
    }
    return { key: ollama?.key ?? ollamaConfig.model, client };
  }
  throw new LlmUnavailableError(
    `No LLM is available: export GEMINI_API_KEY=<your key> to use Gemini (or ANTHROPIC_API_KEY, OPENAI_API_KEY, or OPENAI_BASE_URL ` +
      `for an OpenAI-compatible server), or install Ollama (https://ollama.com), ` +
      `start it with \`ollama serve\` and then run \`ollama pull ${ollamaConfig.model}\`, or set OLLAMA_HOST to a running server ` +
      `(nothing answered at ${host}).`,
  );
}

type Where = (entry: { key: string } | undefined, type: string, example: string) => string;

/**
 * Anthropic for `auto` when a key (or ANTHROPIC_BASE_URL) is set: its entry, else the newest Sonnet its model list
 * names (the list is newest first), else DEFAULT_ANTHROPIC_MODEL when the list cannot be read.
 */
async function autoAnthropic(models: Record<string, ModelConfig>, env: NodeJS.ProcessEnv, tuning: Tuning | undefined, where: Where): Promise<ResolvedTextModel | undefined> {
  const entry = firstOfType(models, 'anthropic');
  const config = entry?.config ?? DEFAULT_ANTHROPIC_MODEL;
  if (!findAnthropicKey(config, env) && anthropicBaseUrl(config, env) === ANTHROPIC_DEFAULT_BASE_URL) return undefined;
  const setting = where(entry, 'anthropic', 'claude-sonnet-5-5');
  const client = createAnthropicClient(config, env, tuning, { setting });
  if (entry) return { key: entry.key, client };
  const listed = await client.listModels({ signal: AbortSignal.timeout(MODEL_LIST_TIMEOUT_MS) }).catch(() => undefined);
  const newest = listed?.find((m) => /sonnet/i.test(m.name))?.name ?? listed?.[0]?.name;
  if (!newest || newest === config.model) return { key: `anthropic:${config.model}`, client };
  return { key: `anthropic:${newest}`, client: createAnthropicClient({ ...config, model: newest }, env, tuning, { setting }) };
}

/**
 * An OpenAI-compatible server for `auto` when a key or OPENAI_BASE_URL is set: its entry; else on OpenAI's own API
 * DEFAULT_OPENAI_MODEL; else (a local or third-party server) the model its list offers (a coding model first),
 * skipped when the list does not answer.
 */
async function autoOpenAi(models: Record<string, ModelConfig>, env: NodeJS.ProcessEnv, tuning: Tuning | undefined, where: Where): Promise<ResolvedTextModel | undefined> {
  const entry = firstOfType(models, 'openai');
  const config = entry?.config ?? DEFAULT_OPENAI_MODEL;
  const baseUrl = openAiBaseUrl(config, env);
  const own = baseUrl === OPENAI_DEFAULT_BASE_URL;
  if (!findOpenAiKey(config, env) && own) return undefined;
  const setting = where(entry, 'openai', 'gpt-4.1-mini');
  const client = createOpenAiClient(config, env, tuning, { setting });
  if (entry || own) return { key: entry?.key ?? `openai:${config.model}`, client };
  const listed = await client.listModels({ signal: AbortSignal.timeout(MODEL_LIST_TIMEOUT_MS) }).catch(() => undefined);
  const served = listed && pickPulledModel(listed);
  if (!served) return undefined;
  return { key: `openai:${served}`, client: createOpenAiClient({ ...config, model: served }, env, tuning, { setting }) };
}

/** A pulled model to use when `wanted` is not pulled; undefined when it is, when none is, or the list cannot be read. */
async function pulledFallback(client: LlmClient, wanted: string): Promise<string | undefined> {
  const pulled = await client.listModels?.({ signal: AbortSignal.timeout(OLLAMA_TAGS_TIMEOUT_MS) }).catch(() => undefined);
  if (!pulled || pulled.some((m) => sameModel('ollama', m.name, wanted))) return undefined;
  return pickPulledModel(pulled);
}

/** The served model `auto` prefers: a coding model, else the first text model listed (Ollama lists the newest first). */
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

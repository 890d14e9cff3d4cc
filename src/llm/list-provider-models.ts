// What each configured provider serves, the default model and what `auto` picks: the facts behind `cortex models`.
import type { ModelConfig } from '../config/models.js';
import { errorMessage } from '../errors.js';
import { MODEL_CHECK_TIMEOUT_MS, sameModel } from './check-model.js';
import { ANTHROPIC_DEFAULT_BASE_URL, anthropicBaseUrl, createAnthropicClient, findAnthropicKey } from './anthropic-client.js';
import { createGeminiClient, findGeminiKey } from './gemini-client.js';
import { createOllamaClient } from './ollama-client.js';
import { resolveOllamaHost } from './ollama-host.js';
import { OPENAI_DEFAULT_BASE_URL, createOpenAiClient, findOpenAiKey, openAiBaseUrl } from './openai-client.js';
import {
  DEFAULT_ANTHROPIC_MODEL,
  DEFAULT_GEMINI_MODEL,
  DEFAULT_OLLAMA_MODEL,
  DEFAULT_OPENAI_MODEL,
  modelForSetting,
  probeOllama,
  resolveTextModel,
} from './select.js';
import type { LlmClient, ProviderModel } from './types.js';

/** One provider's answer: its models, or why none were listed. */
export interface ProviderListing {
  provider: ModelConfig['type'];
  /** Where it was asked: a base URL or host. */
  endpoint: string;
  /** listed: `models` holds what it serves; no_key: a hosted API without a key; unreachable: Ollama not answering; error: see `message`. */
  status: 'listed' | 'no_key' | 'unreachable' | 'error';
  /** Plain words for every status but `listed`. */
  message?: string;
  models: ProviderModel[];
}

/** A chosen model, or why none could be chosen. */
export type ModelChoice = { provider: string; model: string; note?: string } | { error: string };

export interface ModelsReport {
  providers: ProviderListing[];
  /** The profile's llm.text_generation (or --model) and the model it means. */
  setting: string;
  default: ModelChoice;
  /** What `auto` picks now. */
  auto: ModelChoice;
}

export interface ListProviderModelsOptions {
  setting: string;
  models: Record<string, ModelConfig>;
  modelsFile: string;
  env: NodeJS.ProcessEnv;
}

/**
 * Asks each provider for its models (Gemini, Anthropic and OpenAI only with a key or their own base URL, Ollama only
 * when it answers) and works out the default and `auto`. Never throws.
 */
export async function listProviderModels(options: ListProviderModelsOptions): Promise<ModelsReport> {
  const { setting, models, modelsFile, env } = options;
  const first = (type: ModelConfig['type']) => Object.values(models).find((m) => m.type === type);
  const providers = await Promise.all([
    geminiListing(first('gemini') ?? DEFAULT_GEMINI_MODEL, env),
    anthropicListing(first('anthropic') ?? DEFAULT_ANTHROPIC_MODEL, env),
    openAiListing(first('openai') ?? DEFAULT_OPENAI_MODEL, env),
    ollamaListing(first('ollama') ?? DEFAULT_OLLAMA_MODEL, env),
  ]);
  const auto = await choose('auto', options);
  const chosen = setting === 'auto' ? auto : await choose(setting, { setting, models, modelsFile, env });
  return { providers, setting, default: chosen, auto };
}

/** One provider's listing, for the models.yaml entry (or provider default) given. Never throws. */
export function providerListing(config: ModelConfig, env: NodeJS.ProcessEnv): Promise<ProviderListing> {
  const list = { gemini: geminiListing, anthropic: anthropicListing, openai: openAiListing, ollama: ollamaListing }[config.type];
  return list(config, env);
}

/** True when `model` of `provider` is the given choice. */
export function isChoice(choice: ModelChoice, provider: string, model: string): boolean {
  return 'provider' in choice && choice.provider === provider && sameModel(provider, model, choice.model);
}

async function choose(setting: string, options: ListProviderModelsOptions): Promise<ModelChoice> {
  try {
    if (setting !== 'auto') {
      const { config } = modelForSetting(setting, options.models, options.modelsFile);
      return { provider: config.type, model: config.model };
    }
    const { client, note } = await resolveTextModel({ ...options, setting });
    return { provider: client.provider, model: client.model, ...(note ? { note } : {}) };
  } catch (err) {
    return { error: errorMessage(err) };
  }
}

async function geminiListing(config: ModelConfig, env: NodeJS.ProcessEnv): Promise<ProviderListing> {
  const endpoint = config.base_url ?? (env.GEMINI_BASE_URL?.trim() || 'https://generativelanguage.googleapis.com');
  if (!findGeminiKey(config, env)) {
    return { provider: 'gemini', endpoint, status: 'no_key', message: 'no key: export GEMINI_API_KEY=<key> to use Gemini', models: [] };
  }
  try {
    const client = createGeminiClient({ ...config, max_retries: 0 }, env);
    return { provider: 'gemini', endpoint, status: 'listed', models: await client.listModels({ signal: AbortSignal.timeout(MODEL_CHECK_TIMEOUT_MS) }) };
  } catch (err) {
    return { provider: 'gemini', endpoint, status: 'error', message: errorMessage(err), models: [] };
  }
}

async function ollamaListing(config: ModelConfig, env: NodeJS.ProcessEnv): Promise<ProviderListing> {
  let host: string;
  try {
    host = resolveOllamaHost(config.base_url, env);
  } catch (err) {
    return { provider: 'ollama', endpoint: config.base_url ?? env.OLLAMA_HOST ?? '', status: 'error', message: errorMessage(err), models: [] };
  }
  if (!(await probeOllama(host))) {
    return { provider: 'ollama', endpoint: host, status: 'unreachable', message: 'not running: start it with `ollama serve`, or set OLLAMA_HOST', models: [] };
  }
  try {
    const client = createOllamaClient({ ...config, max_retries: 0 }, env);
    return { provider: 'ollama', endpoint: host, status: 'listed', models: await client.listModels({ signal: AbortSignal.timeout(MODEL_CHECK_TIMEOUT_MS) }) };
  } catch (err) {
    return { provider: 'ollama', endpoint: host, status: 'error', message: errorMessage(err), models: [] };
  }
}

async function anthropicListing(config: ModelConfig, env: NodeJS.ProcessEnv): Promise<ProviderListing> {
  const endpoint = anthropicBaseUrl(config, env);
  if (!findAnthropicKey(config, env) && endpoint === ANTHROPIC_DEFAULT_BASE_URL) {
    return { provider: 'anthropic', endpoint, status: 'no_key', message: 'no key: export ANTHROPIC_API_KEY=<key> to use Anthropic', models: [] };
  }
  return listed('anthropic', endpoint, () => createAnthropicClient({ ...config, max_retries: 0 }, env));
}

async function openAiListing(config: ModelConfig, env: NodeJS.ProcessEnv): Promise<ProviderListing> {
  const endpoint = openAiBaseUrl(config, env);
  if (!findOpenAiKey(config, env) && endpoint === OPENAI_DEFAULT_BASE_URL) {
    const message = 'no key: export OPENAI_API_KEY=<key>, or OPENAI_BASE_URL=<server>/v1 for an OpenAI-compatible server';
    return { provider: 'openai', endpoint, status: 'no_key', message, models: [] };
  }
  return listed('openai', endpoint, () => createOpenAiClient({ ...config, max_retries: 0 }, env));
}

async function listed(provider: ModelConfig['type'], endpoint: string, create: () => LlmClient): Promise<ProviderListing> {
  try {
    const models = (await create().listModels?.({ signal: AbortSignal.timeout(MODEL_CHECK_TIMEOUT_MS) })) ?? [];
    return { provider, endpoint, status: 'listed', models };
  } catch (err) {
    return { provider, endpoint, status: 'error', message: errorMessage(err), models: [] };
  }
}

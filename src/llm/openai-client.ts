// LlmClient for any OpenAI-compatible server (OpenAI, LM Studio, llama-server, vLLM, OpenRouter…), through the `openai` SDK.
import { baseUrlOf, findKey } from './provider-endpoint.js';
import type OpenAI from 'openai';
import type { ChatCompletionChunk, ChatCompletionContentPart, ChatCompletionCreateParamsStreaming, ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { ModelConfig } from '../config/models.js';
import { LlmRequestError } from '../errors.js';
import { boundedFetch } from './bounded-fetch.js';
import { embedInBatches } from './embed-in-batches.js';
import { readStream, type StreamTuning } from './read-stream.js';
import { hostedConnection } from './hosted-connection.js';
import type { RetryTuning } from './retry.js';
import { applyModelSettings } from './model-settings.js';
import type { EmbedResult, GenerateRequest, GenerateResult, LlmClient, ProviderModel } from './types.js';

const PROVIDER = 'openai';
/** OpenAI's own endpoint, used when neither base_url nor OPENAI_BASE_URL is set. */
export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';
/** Key variable tried after models.yaml's api_key_env. */
export const OPENAI_KEY_VARIABLE = 'OPENAI_API_KEY';
/** Sent when a local server needs no key: the SDK insists on one, and local servers ignore it. */
const NO_KEY = 'no-key';
/** Most models read from /v1/models (OpenRouter lists a few hundred). */
export const MAX_LISTED_OPENAI_MODELS = 1_000;
/** Texts per /v1/embeddings request (OpenAI accepts 2,048; local servers fewer). */
export const OPENAI_EMBED_BATCH_MAX = 64;

/** An OpenAI-compatible client; `baseUrl` is the server, `keySource` the variable the key came from (if any). */
export interface OpenAiClient extends LlmClient {
  readonly provider: 'openai';
  readonly baseUrl: string;
  readonly keySource: string | undefined;
  readonly setting: string;
  listModels(options?: { signal?: AbortSignal }): Promise<ProviderModel[]>;
}

/** The key and where it came from: `config.api_key_env`, else OPENAI_API_KEY (the first set and not blank). */
export function findOpenAiKey(config: Pick<ModelConfig, 'api_key_env'>, env: NodeJS.ProcessEnv): { key: string; source: string } | undefined {
  return findKey(config, OPENAI_KEY_VARIABLE, env);
}

/** The server: `config.base_url`, else OPENAI_BASE_URL, else OpenAI's (without a trailing slash). */
export function openAiBaseUrl(config: Pick<ModelConfig, 'base_url'>, env: NodeJS.ProcessEnv): string {
  return baseUrlOf(config, 'OPENAI_BASE_URL', OPENAI_DEFAULT_BASE_URL, env);
}

/**
 * Creates the client for one models.yaml entry of `type: openai`. A server other than OpenAI's may need no key.
 * Nothing is contacted until the first request.
 * @throws LlmUnavailableError when OpenAI's own endpoint is used without a key.
 */
export function createOpenAiClient(
  config: ModelConfig,
  env: NodeJS.ProcessEnv,
  tuning?: RetryTuning & StreamTuning,
  options: { setting?: string } = {},
): OpenAiClient {
  // Loaded on the first request, so a user of another provider never loads it.
  const { baseUrl, keySource, setting, run } = hostedConnection<OpenAI>(
    {
      provider: PROVIDER,
      title: 'the OpenAI-compatible server',
      keyVariable: OPENAI_KEY_VARIABLE,
      baseUrlVariable: 'OPENAI_BASE_URL',
      defaultBaseUrl: OPENAI_DEFAULT_BASE_URL,
      missingKey: (looked) =>
        `OpenAI needs an API key: export OPENAI_API_KEY=<key> (looked in ${looked}), or set OPENAI_BASE_URL to a local OpenAI-compatible server such as http://127.0.0.1:1234/v1.`,
      load: async (key, url) => {
        const { default: Sdk } = await import('openai');
        return new Sdk({ apiKey: key ?? NO_KEY, baseURL: url, maxRetries: 0, timeout: config.timeout_ms, fetch: boundedFetch(undefined) });
      },
    },
    config,
    env,
    { ...(tuning ? { tuning } : {}), ...(options.setting ? { setting: options.setting } : {}), listModels: () => listModels() },
  );

  const listModels = async (opts: { signal?: AbortSignal } = {}): Promise<ProviderModel[]> => {
    const { value } = await run(
      async (api, signal) => {
        const models: ProviderModel[] = [];
        for await (const model of api.models.list({ signal })) {
          if (typeof model?.id === 'string' && model.id.length > 0 && model.id.length < 300) models.push({ name: model.id });
          if (models.length >= MAX_LISTED_OPENAI_MODELS) break;
        }
        return models;
      },
      opts.signal,
      config.model,
      undefined,
      true,
    );
    return value;
  };

  return {
    provider: PROVIDER,
    model: config.model,
    baseUrl,
    keySource,
    setting,
    listModels,

    async generate(asked: GenerateRequest): Promise<GenerateResult> {
      const request = applyModelSettings(asked, config);
      const { onProgress } = request;
      const messages: ChatCompletionMessageParam[] = [];
      if (request.system) messages.push({ role: 'system', content: request.system });
      messages.push({ role: 'user', content: userContent(request) });
      const { temperature, maxOutputTokens: maxTokens } = request;
      const body: ChatCompletionCreateParamsStreaming = {
        model: config.model,
        messages,
        stream: true,
        // The last chunk then carries the token counts.
        stream_options: { include_usage: true },
        ...(temperature !== undefined ? { temperature } : {}),
        // OpenAI's own API wants max_completion_tokens (its reasoning models refuse max_tokens); other servers know max_tokens.
        ...(maxTokens !== undefined ? (baseUrl === OPENAI_DEFAULT_BASE_URL ? { max_completion_tokens: maxTokens } : { max_tokens: maxTokens }) : {}),
        ...(request.jsonSchema ? { response_format: { type: 'json_schema', json_schema: { name: 'answer', schema: request.jsonSchema } } } : {}),
      };
      let finishReason: string | undefined;
      const { value, latencyMs } = await run(
        async (api, signal) => {
          finishReason = undefined;
          const stream = await api.chat.completions.create(body, { signal });
          return readStream<ChatCompletionChunk>({
            chunks: stream,
            textOf: (chunk) => chunk?.choices?.[0]?.delta?.content ?? '',
            isFinal: (chunk) => {
              const reason = chunk?.choices?.[0]?.finish_reason;
              if (reason) finishReason = reason;
              return Boolean(reason);
            },
            stop: () => stream.controller.abort(),
            ...(onProgress ? { onProgress } : {}),
            ...(tuning ? { tuning } : {}),
          });
        },
        request.signal,
        config.model,
        onProgress,
      );
      // With include_usage the counts come in a last chunk without choices; servers that ignore it send none.
      const usage = value.last?.usage;
      if (value.text === '' && finishReason === 'content_filter') throw new LlmRequestError(PROVIDER, 'empty answer (content_filter)');
      return {
        text: value.text,
        model: config.model,
        usage: { promptTokens: usage?.prompt_tokens ?? 0, completionTokens: usage?.completion_tokens ?? 0 },
        latencyMs,
        ...(finishReason === 'length' ? { hitOutputLimit: true } : {}),
      };
    },

    embed(texts: string[], options: { signal?: AbortSignal } = {}): Promise<EmbedResult> {
      return embedInBatches({
        provider: PROVIDER,
        model: config.model,
        embeddingModel: config.embedding_model,
        texts,
        batchMax: OPENAI_EMBED_BATCH_MAX,
        embedBatch: async (model, batch) => {
          const result = await run((api, signal) => api.embeddings.create({ model, input: batch, encoding_format: 'float' }, { signal }), options.signal, model);
          const vectors = [...(result.value.data ?? [])].sort((a, b) => a.index - b.index).map((d) => d.embedding);
          if (vectors.length !== batch.length || !vectors.every((v) => Array.isArray(v))) {
            throw new LlmRequestError(PROVIDER, `answer from ${baseUrl}/embeddings does not hold ${batch.length} embeddings`);
          }
          return { vectors, latencyMs: result.latencyMs };
        },
      });
    },
  };
}

/** The user turn: the prompt alone, or the prompt and its images as data URLs (the vision format servers share). */
function userContent(request: GenerateRequest): string | ChatCompletionContentPart[] {
  if (!request.images?.length) return request.prompt;
  return [
    { type: 'text', text: request.prompt },
    ...request.images.map((image): ChatCompletionContentPart => ({
      type: 'image_url',
      image_url: { url: `data:${image.mimeType};base64,${Buffer.from(image.data).toString('base64')}` },
    })),
  ];
}

// LlmClient for Anthropic's Messages API through @anthropic-ai/sdk: streamed messages, JSON through a forced tool, /v1/models.
import { baseUrlOf, findKey } from './provider-endpoint.js';
import type Anthropic from '@anthropic-ai/sdk';
import type { ContentBlockParam, MessageCreateParamsStreaming, RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages';
import type { ModelConfig } from '../config/models.js';
import { LlmRequestError } from '../errors.js';
import { boundedFetch } from './bounded-fetch.js';
import { readStream, type StreamTuning } from './read-stream.js';
import { hostedConnection } from './hosted-connection.js';
import type { RetryTuning } from './retry.js';
import { applyModelSettings } from './model-settings.js';
import type { EmbedResult, GenerateRequest, GenerateResult, LlmClient, ProviderModel } from './types.js';

const PROVIDER = 'anthropic';
/** Anthropic's endpoint, used when neither base_url nor ANTHROPIC_BASE_URL is set. */
export const ANTHROPIC_DEFAULT_BASE_URL = 'https://api.anthropic.com';
/** Key variable tried after models.yaml's api_key_env. */
export const ANTHROPIC_KEY_VARIABLE = 'ANTHROPIC_API_KEY';
/**
 * max_tokens when neither the request nor models.yaml gives one: the API requires a value, and 8,192 holds any
 * plan or caption while every current model accepts it.
 */
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 8_192;
/** Most models read from /v1/models. */
export const MAX_LISTED_ANTHROPIC_MODELS = 1_000;
/** The forced tool whose input is the structured answer. */
export const ANSWER_TOOL = 'answer';

type ImageMediaType = 'image/jpeg' | 'image/png' | 'image/gif' | 'image/webp';

/** An Anthropic client; `baseUrl` is the endpoint, `keySource` the variable the key came from. */
export interface AnthropicClient extends LlmClient {
  readonly provider: 'anthropic';
  readonly baseUrl: string;
  readonly keySource: string | undefined;
  readonly setting: string;
  listModels(options?: { signal?: AbortSignal }): Promise<ProviderModel[]>;
}

/** The key and where it came from: `config.api_key_env`, else ANTHROPIC_API_KEY (the first set and not blank). */
export function findAnthropicKey(config: Pick<ModelConfig, 'api_key_env'>, env: NodeJS.ProcessEnv): { key: string; source: string } | undefined {
  return findKey(config, ANTHROPIC_KEY_VARIABLE, env);
}

/** The endpoint: `config.base_url`, else ANTHROPIC_BASE_URL, else Anthropic's (without a trailing slash). */
export function anthropicBaseUrl(config: Pick<ModelConfig, 'base_url'>, env: NodeJS.ProcessEnv): string {
  return baseUrlOf(config, 'ANTHROPIC_BASE_URL', ANTHROPIC_DEFAULT_BASE_URL, env);
}

/**
 * Creates the client for one models.yaml entry of `type: anthropic`. Nothing is contacted until the first request.
 * @throws LlmUnavailableError when Anthropic's own endpoint is used without a key.
 */
export function createAnthropicClient(
  config: ModelConfig,
  env: NodeJS.ProcessEnv,
  tuning?: RetryTuning & StreamTuning,
  options: { setting?: string } = {},
): AnthropicClient {
  // The key is passed explicitly, so the SDK reads no profile or credential file.
  const { baseUrl, keySource, setting, run } = hostedConnection<Anthropic>(
    {
      provider: PROVIDER,
      title: 'Anthropic',
      keyVariable: ANTHROPIC_KEY_VARIABLE,
      baseUrlVariable: 'ANTHROPIC_BASE_URL',
      defaultBaseUrl: ANTHROPIC_DEFAULT_BASE_URL,
      missingKey: (looked) => `Anthropic needs an API key: export ANTHROPIC_API_KEY=<key> (looked in ${looked}; get a key at https://console.anthropic.com).`,
      load: async (key, url) => {
        const { default: Sdk } = await import('@anthropic-ai/sdk');
        return new Sdk({ apiKey: key ?? 'no-key', baseURL: url, maxRetries: 0, timeout: config.timeout_ms, fetch: boundedFetch(undefined) });
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
        for await (const model of api.models.list({ limit: 1_000 }, { signal })) {
          if (typeof model?.id !== 'string' || model.id.length === 0 || model.id.length > 300 || model.lifecycle === 'retired') continue;
          models.push({ name: model.id, ...(typeof model.max_input_tokens === 'number' ? { inputTokens: model.max_input_tokens } : {}) });
          if (models.length >= MAX_LISTED_ANTHROPIC_MODELS) break;
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
      const { onProgress, temperature } = request;
      const body: MessageCreateParamsStreaming = {
        model: config.model,
        max_tokens: request.maxOutputTokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS,
        messages: [{ role: 'user', content: userContent(request) }],
        stream: true,
        ...(request.system ? { system: request.system } : {}),
        ...(temperature !== undefined ? { temperature: Math.min(temperature, 1) } : {}),
        // Structured output: the model must call one tool whose input schema is the wanted JSON; its input is the answer.
        ...(request.jsonSchema
          ? {
              tools: [{ name: ANSWER_TOOL, description: 'Give the answer in this structure.', input_schema: request.jsonSchema as { type: 'object' } }],
              tool_choice: { type: 'tool', name: ANSWER_TOOL },
            }
          : {}),
      };
      const counts = { input: 0, output: 0, stop: undefined as string | undefined };
      const { value, latencyMs } = await run(
        async (api, signal) => {
          counts.stop = undefined;
          const stream = await api.messages.create(body, { signal });
          return readStream<RawMessageStreamEvent>({
            chunks: stream,
            textOf: (event) => {
              if (event?.type !== 'content_block_delta') return '';
              if (event.delta.type === 'text_delta') return event.delta.text;
              return event.delta.type === 'input_json_delta' ? event.delta.partial_json : '';
            },
            // Called for every event: the counts and the stop reason come in events without text.
            isFinal: (event) => {
              if (event?.type === 'message_start') counts.input = event.message.usage?.input_tokens ?? 0;
              if (event?.type === 'message_delta') {
                counts.stop = event.delta.stop_reason ?? counts.stop;
                counts.output = event.usage?.output_tokens ?? counts.output;
              }
              return event?.type === 'message_stop';
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
      if (value.text === '' && counts.stop === 'refusal') throw new LlmRequestError(PROVIDER, 'empty answer (refusal)');
      return {
        text: value.text,
        model: config.model,
        usage: { promptTokens: counts.input, completionTokens: counts.output },
        latencyMs,
        ...(counts.stop === 'max_tokens' ? { hitOutputLimit: true } : {}),
      };
    },

    embed(): Promise<EmbedResult> {
      return Promise.reject(
        new LlmRequestError(PROVIDER, 'Anthropic serves no embedding models: set llm.embedding to builtin, or to an Ollama, Gemini or OpenAI-compatible entry'),
      );
    },
  };
}

/** The user turn: the prompt alone, or its images first and then the prompt (Anthropic's advice for vision). */
function userContent(request: GenerateRequest): string | ContentBlockParam[] {
  if (!request.images?.length) return request.prompt;
  return [
    ...request.images.map((image): ContentBlockParam => ({
      type: 'image',
      source: { type: 'base64', media_type: image.mimeType as ImageMediaType, data: Buffer.from(image.data).toString('base64') },
    })),
    { type: 'text', text: request.prompt },
  ];
}

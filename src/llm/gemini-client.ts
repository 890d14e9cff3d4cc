// LlmClient for Google's Gemini API, through @google/genai (streamed generateContent, batchEmbedContents, models.list/get).
import type { GenerateContentConfig, GenerateContentResponse, GoogleGenAI } from '@google/genai';
import { boundedFetch } from './bounded-fetch.js';
import { embedInBatches } from './embed-in-batches.js';
import type { ModelConfig } from '../config/models.js';
import { LlmRequestError, LlmUnavailableError, ModelNotFoundError, errorMessage } from '../errors.js';
import { DEFAULT_MODEL_SETTING, modelNotFoundFailure } from './check-model.js';
import { describeStreamFailure, readStream, type StreamTuning } from './read-stream.js';
import { isRetryableStatus, networkErrorCode, requestWithRetries, type AttemptFailure, type RetryTuning } from './retry.js';
import { applyModelSettings } from './model-settings.js';
import { estimatePromptTokens } from './token-estimate.js';
import type { EmbedPurpose, EmbedResult, GenerateRequest, GenerateResult, LlmClient, ProviderModel } from './types.js';

const PROVIDER = 'gemini';
/** The Gemini API accepts at most 100 texts per batchEmbedContents request. */
export const GEMINI_EMBED_BATCH_MAX = 100;
/** Key variables tried after models.yaml's api_key_env, in this order. */
export const GEMINI_KEY_VARIABLES = ['GEMINI_API_KEY', 'GOOGLE_API_KEY'] as const;

/** Most models read from models.list: Google serves about fifty; the bound keeps a broken endpoint from running on. */
export const MAX_LISTED_GEMINI_MODELS = 1_000;
/** Most models.list pages followed (each asks for GEMINI_LIST_PAGE_SIZE models). */
export const MAX_GEMINI_LIST_PAGES = 10;
/** Models per models.list page (the API's maximum). */
const GEMINI_LIST_PAGE_SIZE = 1_000;

/** A Gemini client; `keySource` names the variable the key came from, `baseUrl` the endpoint if not Google's. */
export interface GeminiClient extends LlmClient {
  readonly provider: 'gemini';
  readonly keySource: string;
  readonly baseUrl?: string;
  /** Where the model name was set, for messages. */
  readonly setting: string;
  listModels(options?: { signal?: AbortSignal }): Promise<ProviderModel[]>;
}

/**
 * Which environment variable holds the Gemini key: `config.api_key_env`, else GEMINI_API_KEY,
 * else GOOGLE_API_KEY (the first one that is set and not blank).
 */
export function findGeminiKey(
  config: Pick<ModelConfig, 'api_key_env'>,
  env: NodeJS.ProcessEnv,
): { key: string; source: string } | undefined {
  const names = config.api_key_env ? [config.api_key_env, ...GEMINI_KEY_VARIABLES] : [...GEMINI_KEY_VARIABLES];
  for (const name of names) {
    const key = env[name]?.trim();
    if (key) return { key, source: name };
  }
  return undefined;
}

/**
 * Creates the Gemini client for one models.yaml entry. The endpoint is `config.base_url`, else
 * `env.GEMINI_BASE_URL`, else Google's (a base URL without the /v1beta part).
 * @throws LlmUnavailableError when no API key is set.
 */
export function createGeminiClient(
  config: ModelConfig,
  env: NodeJS.ProcessEnv,
  tuning?: RetryTuning & StreamTuning,
  options: { setting?: string } = {},
): GeminiClient {
  const found = findGeminiKey(config, env);
  if (!found) {
    const named = config.api_key_env ? `${config.api_key_env}, ` : '';
    throw new LlmUnavailableError(
      `Gemini needs an API key: export GEMINI_API_KEY=<key> (looked in ${named}GEMINI_API_KEY, GOOGLE_API_KEY; get a key at https://aistudio.google.com/apikey).`,
    );
  }
  const baseUrl = config.base_url ?? (env.GEMINI_BASE_URL?.trim() || undefined);
  // vertexai: false so stray GOOGLE_GENAI_USE_VERTEXAI in the shell cannot switch the backend.
  // The bounded fetch caps every answer's size (the SDK's own reads are not bounded).
  // The SDK (with google-auth-library, about 1.6 MB) is loaded on the first request, so an Ollama user never loads it.
  let sdk: Promise<GoogleGenAI> | undefined;
  const models = async () => {
    sdk ??= import('@google/genai').then(
      ({ GoogleGenAI: Sdk }) => new Sdk({ apiKey: found.key, vertexai: false, httpOptions: { ...(baseUrl ? { baseUrl } : {}), fetch: boundedFetch(undefined) } }),
    );
    return (await sdk).models;
  };
  const endpoint = baseUrl ?? 'the Gemini API';
  const setting = options.setting ?? DEFAULT_MODEL_SETTING;
  const inputLimits = new Map<string, Promise<number | undefined>>();

  const run = <T>(
    attempt: (signal: AbortSignal) => Promise<T>,
    signal: AbortSignal | undefined,
    model = config.model,
    onProgress?: GenerateRequest['onProgress'],
    listing = false,
  ) =>
    requestWithRetries({
      provider: PROVIDER,
      timeoutMs: config.timeout_ms,
      maxRetries: config.max_retries,
      signal,
      tuning,
      ...(onProgress ? { onProgress } : {}),
      attempt,
      // While listing, a 404 must not list again.
      describe: (err) => describeGeminiFailure(err, endpoint, found.source, model, setting, listing ? async () => [] : () => listModels()),
    });

  const listModels = async (opts: { signal?: AbortSignal } = {}): Promise<ProviderModel[]> => {
    const { value } = await run(async (abortSignal) => {
      const found: ProviderModel[] = [];
      let pager = await (await models()).list({ config: { pageSize: GEMINI_LIST_PAGE_SIZE, abortSignal } });
      for (let page = 1; ; page++) {
        const items: unknown = pager.page;
        if (!Array.isArray(items)) throw new LlmRequestError(PROVIDER, `the model list from ${endpoint} is not in the Gemini API's format`);
        for (const item of items) {
          const model = toProviderModel(item);
          if (model) found.push(model);
        }
        if (found.length >= MAX_LISTED_GEMINI_MODELS || page >= MAX_GEMINI_LIST_PAGES || !pager.hasNextPage()) break;
        pager = await nextPage(pager);
      }
      return found.slice(0, MAX_LISTED_GEMINI_MODELS);
    }, opts.signal, config.model, undefined, true);
    return value;
  };

  /** The model's inputTokenLimit (models.get, once per model); undefined when it cannot be read. A 404 throws ModelNotFoundError. */
  const inputLimit = (model: string, signal: AbortSignal | undefined): Promise<number | undefined> => {
    let known = inputLimits.get(model);
    if (!known) {
      known = run(async (abortSignal) => (await models()).get({ model, config: { abortSignal } }), signal, model).then(
        ({ value }) => (typeof value?.inputTokenLimit === 'number' && value.inputTokenLimit > 0 ? value.inputTokenLimit : undefined),
        (err: unknown) => {
          if (err instanceof ModelNotFoundError) throw err;
          return undefined; // the limit is advice: a failed look-up must not stop the request
        },
      );
      inputLimits.set(model, known);
      known.catch(() => inputLimits.delete(model));
    }
    return known;
  };

  return {
    provider: PROVIDER,
    model: config.model,
    keySource: found.source,
    ...(baseUrl ? { baseUrl } : {}),
    setting,
    listModels,

    async generate(asked: GenerateRequest): Promise<GenerateResult> {
      const request = applyModelSettings(asked, config);
      const { onProgress } = request;
      const limit = await inputLimit(config.model, request.signal);
      const promptTokens = estimatePromptTokens(`${request.system ?? ''}\n${request.prompt}`);
      if (limit !== undefined && promptTokens > limit) {
        onProgress?.({
          kind: 'notice',
          message: `The prompt is about ${promptTokens} tokens and ${config.model} reads at most ${limit}: Gemini may refuse it. Use fewer MCP servers or a model with a larger context.`,
        });
      }
      const base: GenerateContentConfig = {
        // One request per generate: no automatic continuation hops the trace would not see.
        automaticContinuation: false,
        ...(request.system ? { systemInstruction: request.system } : {}),
        ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
        ...(request.maxOutputTokens !== undefined ? { maxOutputTokens: request.maxOutputTokens } : {}),
        ...(request.jsonSchema
          ? { responseMimeType: 'application/json', responseJsonSchema: request.jsonSchema }
          : {}),
      };
      // Images go as inline data parts after the prompt, in one user turn.
      const contents = request.images?.length
        ? [{ role: 'user', parts: [{ text: request.prompt }, ...request.images.map((image) => ({ inlineData: { mimeType: image.mimeType, data: Buffer.from(image.data).toString('base64') } }))] }]
        : request.prompt;
      const { value, latencyMs } = await run(
        async (abortSignal) => {
          const stop = new AbortController();
          const stream = await (await models()).generateContentStream({
            model: config.model,
            contents,
            config: { ...base, abortSignal: AbortSignal.any([abortSignal, stop.signal]) },
          });
          return readStream<GenerateContentResponse>({
            chunks: stream,
            textOf: chunkText,
            tokensOf: (chunk) => completionTokensOf(chunk),
            isFinal: (chunk) => chunk?.candidates?.[0]?.finishReason !== undefined || chunk?.promptFeedback?.blockReason !== undefined,
            stop: (reason) => stop.abort(reason),
            ...(onProgress ? { onProgress } : {}),
            ...(tuning ? { tuning } : {}),
          });
        },
        request.signal,
        config.model,
        onProgress,
      );
      const final = value.last;
      const usage = final?.usageMetadata;
      return {
        text: answerText(value.text, final),
        model: config.model,
        usage: {
          promptTokens: usage?.promptTokenCount ?? 0,
          completionTokens: final ? completionTokensOf(final) ?? 0 : 0,
        },
        latencyMs,
        ...(final?.candidates?.[0]?.finishReason === 'MAX_TOKENS' ? { hitOutputLimit: true } : {}),
      };
    },

    embed(texts: string[], options: { signal?: AbortSignal; purpose?: EmbedPurpose } = {}): Promise<EmbedResult> {
      // Gemini's embedding models are trained per task: passages to be searched, and the queries searching them.
      const taskType = options.purpose && (options.purpose === 'query' ? 'RETRIEVAL_QUERY' : 'RETRIEVAL_DOCUMENT');
      return embedInBatches({
        provider: PROVIDER,
        model: config.model,
        embeddingModel: config.embedding_model,
        texts,
        batchMax: GEMINI_EMBED_BATCH_MAX,
        embedBatch: async (model, batch) => {
          const result = await run(async (abortSignal) => (await models()).embedContent({ model, contents: batch, config: { abortSignal, ...(taskType ? { taskType } : {}) } }), options.signal, model);
          const values = (result.value.embeddings ?? []).map((e) => e.values);
          if (values.length !== batch.length || !values.every((v) => Array.isArray(v))) {
            throw new LlmRequestError(PROVIDER, `embedding answer does not hold ${batch.length} vectors`);
          }
          return { vectors: values as number[][], latencyMs: result.latencyMs };
        },
      });
    },
  };
}

/** The text a streamed chunk adds: its first candidate's text parts (thought parts left out). */
function chunkText(chunk: GenerateContentResponse): string {
  const parts = chunk?.candidates?.[0]?.content?.parts ?? [];
  return parts
    .filter((p) => typeof p.text === 'string' && !p.thought)
    .map((p) => p.text)
    .join('');
}

/** Completion tokens so far by the provider's count; thinking tokens are billed and timed as output, so they count. */
function completionTokensOf(chunk: GenerateContentResponse): number | undefined {
  const usage = chunk?.usageMetadata;
  if (usage?.candidatesTokenCount === undefined && usage?.thoughtsTokenCount === undefined) return undefined;
  return (usage.candidatesTokenCount ?? 0) + (usage.thoughtsTokenCount ?? 0);
}

/** The streamed text, checked: an empty or blocked answer is an error. */
function answerText(text: string, final: GenerateContentResponse | undefined): string {
  const candidate = final?.candidates?.[0];
  if (text === '' && (!candidate || candidate.finishReason !== 'STOP')) {
    const reason = final?.promptFeedback?.blockReason ?? candidate?.finishReason ?? 'no candidates';
    throw new LlmRequestError(PROVIDER, `empty answer (${reason})`);
  }
  return text;
}

/** One models.list entry as a ProviderModel (name without the "models/" prefix); undefined when unreadable. */
function toProviderModel(item: unknown): ProviderModel | undefined {
  const m = item as { name?: unknown; inputTokenLimit?: unknown; supportedActions?: unknown } | null;
  if (typeof m?.name !== 'string' || m.name.length === 0 || m.name.length > 300) return undefined;
  return {
    name: m.name.replace(/^models\//, ''),
    ...(typeof m.inputTokenLimit === 'number' ? { inputTokens: m.inputTokenLimit } : {}),
    ...(Array.isArray(m.supportedActions) ? { actions: m.supportedActions.filter((a): a is string => typeof a === 'string').slice(0, 20) } : {}),
  };
}

async function nextPage<P extends { nextPage(): Promise<unknown> }>(pager: P): Promise<P> {
  await pager.nextPage();
  return pager;
}

/** Classifies a failed Gemini attempt; ApiError messages are the server's JSON error body. A 404 names the models that exist. */
async function describeGeminiFailure(
  err: unknown,
  endpoint: string,
  keySource: string,
  model: string,
  setting: string,
  listModels: () => Promise<ProviderModel[]>,
): Promise<AttemptFailure> {
  const streamed = describeStreamFailure(err);
  if (streamed) return streamed;
  const status = (err as { status?: unknown }).status;
  if (typeof status === 'number') {
    const body = parseErrorBody(errorMessage(err));
    const detail = body?.message ?? errorMessage(err);
    if (status === 404) {
      return modelNotFoundFailure(err, status, detail, { provider: PROVIDER, model, setting }, async () =>
        (await listModels()).filter((m) => !m.actions || m.actions.includes('generateContent')).map((m) => m.name),
      );
    }
    const badKey = status === 401 || status === 403 || /API[_ ]KEY/i.test(detail);
    const hint = badKey ? ` (check the key in ${keySource})` : '';
    return {
      status,
      retryable: isRetryableStatus(status),
      message: `HTTP ${status}: ${detail}${hint}`,
      ...(body?.retryDelayMs !== undefined ? { retryAfterMs: body.retryDelayMs } : {}),
    };
  }
  const code = networkErrorCode(err);
  if (code === 'ECONNREFUSED') {
    // Nothing listens there (a local proxy or fake that is down): waiting will not start it.
    return { retryable: false, reason: 'connection refused', message: `nothing answers at ${endpoint} (connection refused): check GEMINI_BASE_URL / base_url in models.yaml` };
  }
  if (code) {
    return {
      retryable: true,
      message: `cannot reach ${endpoint} (${code}): check the network, or GEMINI_BASE_URL / base_url in models.yaml`,
    };
  }
  return { retryable: false, message: `request failed: ${errorMessage(err)}` };
}

/** Reads `{error: {message, details: [{retryDelay: "20s"}]}}`, the Google API error shape. */
function parseErrorBody(text: string): { message?: string; retryDelayMs?: number } | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  const error = (parsed as { error?: { message?: unknown; details?: unknown } } | null)?.error;
  if (!error) return undefined;
  const message = typeof error.message === 'string' ? error.message : undefined;
  let retryDelayMs: number | undefined;
  if (Array.isArray(error.details)) {
    for (const detail of error.details as { retryDelay?: unknown }[]) {
      const match = typeof detail?.retryDelay === 'string' ? /^(\d+(?:\.\d+)?)s$/.exec(detail.retryDelay) : null;
      if (match) retryDelayMs = Math.round(Number(match[1]) * 1000);
    }
  }
  return { ...(message ? { message } : {}), ...(retryDelayMs !== undefined ? { retryDelayMs } : {}) };
}

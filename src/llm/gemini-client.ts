// LlmClient for Google's Gemini API, through @google/genai (generateContent and batchEmbedContents).
import { GoogleGenAI, type GenerateContentConfig, type GenerateContentResponse } from '@google/genai';
import { embedInBatches } from './embed-in-batches.js';
import type { ModelConfig } from '../config/models.js';
import { LlmRequestError, LlmUnavailableError, errorMessage } from '../errors.js';
import { isRetryableStatus, networkErrorCode, requestWithRetries, type AttemptFailure, type RetryTuning } from './retry.js';
import type { EmbedResult, GenerateRequest, GenerateResult, LlmClient } from './types.js';

const PROVIDER = 'gemini';
/** The Gemini API accepts at most 100 texts per batchEmbedContents request. */
export const GEMINI_EMBED_BATCH_MAX = 100;
/** Key variables tried after models.yaml's api_key_env, in this order. */
export const GEMINI_KEY_VARIABLES = ['GEMINI_API_KEY', 'GOOGLE_API_KEY'] as const;

/** A Gemini client; `keySource` names the variable the key came from, `baseUrl` the endpoint if not Google's. */
export interface GeminiClient extends LlmClient {
  readonly provider: 'gemini';
  readonly keySource: string;
  readonly baseUrl?: string;
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
export function createGeminiClient(config: ModelConfig, env: NodeJS.ProcessEnv, tuning?: RetryTuning): GeminiClient {
  const found = findGeminiKey(config, env);
  if (!found) {
    const named = config.api_key_env ? `${config.api_key_env}, ` : '';
    throw new LlmUnavailableError(
      `Gemini needs an API key: export GEMINI_API_KEY=<key> (looked in ${named}GEMINI_API_KEY, GOOGLE_API_KEY; get a key at https://aistudio.google.com/apikey).`,
    );
  }
  const baseUrl = config.base_url ?? (env.GEMINI_BASE_URL?.trim() || undefined);
  // vertexai: false so stray GOOGLE_GENAI_USE_VERTEXAI in the shell cannot switch the backend.
  const ai = new GoogleGenAI({ apiKey: found.key, vertexai: false, ...(baseUrl ? { httpOptions: { baseUrl } } : {}) });
  const endpoint = baseUrl ?? 'the Gemini API';

  const run = <T>(attempt: (signal: AbortSignal) => Promise<T>, signal: AbortSignal | undefined) =>
    requestWithRetries({
      provider: PROVIDER,
      timeoutMs: config.timeout_ms,
      maxRetries: config.max_retries,
      signal,
      tuning,
      attempt,
      describe: (err) => describeGeminiFailure(err, endpoint, found.source),
    });

  return {
    provider: PROVIDER,
    model: config.model,
    keySource: found.source,
    ...(baseUrl ? { baseUrl } : {}),

    async generate(request: GenerateRequest): Promise<GenerateResult> {
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
        (abortSignal) => ai.models.generateContent({ model: config.model, contents, config: { ...base, abortSignal } }),
        request.signal,
      );
      const usage = value.usageMetadata;
      return {
        text: answerText(value),
        model: config.model,
        usage: {
          promptTokens: usage?.promptTokenCount ?? 0,
          // Thinking tokens are billed and timed as output, so they count as completion.
          completionTokens: (usage?.candidatesTokenCount ?? 0) + (usage?.thoughtsTokenCount ?? 0),
        },
        latencyMs,
      };
    },

    embed(texts: string[], options: { signal?: AbortSignal } = {}): Promise<EmbedResult> {
      return embedInBatches({
        provider: PROVIDER,
        model: config.model,
        embeddingModel: config.embedding_model,
        texts,
        batchMax: GEMINI_EMBED_BATCH_MAX,
        embedBatch: async (model, batch) => {
          const result = await run((abortSignal) => ai.models.embedContent({ model, contents: batch, config: { abortSignal } }), options.signal);
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

/** The text of the first candidate (thought parts left out); an empty or blocked answer is an error. */
function answerText(response: GenerateContentResponse): string {
  const candidate = response.candidates?.[0];
  const parts = candidate?.content?.parts ?? [];
  const text = parts
    .filter((p) => typeof p.text === 'string' && !p.thought)
    .map((p) => p.text)
    .join('');
  if (text === '' && (!candidate || candidate.finishReason !== 'STOP')) {
    const reason = response.promptFeedback?.blockReason ?? candidate?.finishReason ?? 'no candidates';
    throw new LlmRequestError(PROVIDER, `empty answer (${reason})`);
  }
  return text;
}

/** Classifies a failed Gemini attempt; ApiError messages are the server's JSON error body. */
function describeGeminiFailure(err: unknown, endpoint: string, keySource: string): AttemptFailure {
  const status = (err as { status?: unknown }).status;
  if (typeof status === 'number') {
    const body = parseErrorBody(errorMessage(err));
    const detail = body?.message ?? errorMessage(err);
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

// LlmClient for a local Ollama server, through the `ollama` npm package: streamed /api/chat sized by num_ctx, /api/embed, /api/tags.
import { Ollama, type ChatResponse, type EmbedResponse, type Message } from 'ollama';
import { boundedFetch } from './bounded-fetch.js';
import { DEFAULT_MODEL_SETTING, modelNotFoundFailure } from './check-model.js';
import { embedInBatches } from './embed-in-batches.js';
import type { ModelConfig } from '../config/models.js';
import { LlmRequestError, errorMessage } from '../errors.js';
import { FALLBACK_CONTEXT_TOKENS, contextLengthOf, sizeNumCtx } from './ollama-context.js';
import { applyModelSettings } from './model-settings.js';
import { resolveOllamaHost } from './ollama-host.js';
import { describeStreamFailure, readStream, type StreamTuning } from './read-stream.js';
import { isRetryableStatus, networkErrorCode, requestWithRetries, type AttemptFailure, type RetryTuning } from './retry.js';
import type { EmbedResult, GenerateRequest, GenerateResult, LlmClient, LlmProgress, ProviderModel } from './types.js';

const PROVIDER = 'ollama';
/** Texts per /api/embed request: keeps each request well inside timeout_ms on a CPU. */
export const OLLAMA_EMBED_BATCH_MAX = 64;
/** Most bytes of an /api/tags or /api/show answer: a list of thousands of models is far below it. */
export const MAX_MODEL_LIST_BYTES = 4 * 2 ** 20;
/** Most models read from /api/tags; more than anyone pulls, and it keeps messages and `cortex models` bounded. */
export const MAX_LISTED_MODELS = 1_000;

/** An Ollama client; `host` is the server it talks to (for messages and `--verbose`). */
export interface OllamaClient extends LlmClient {
  readonly provider: 'ollama';
  readonly host: string;
  /** Where the model name was set, for messages. */
  readonly setting: string;
  listModels(options?: { signal?: AbortSignal }): Promise<ProviderModel[]>;
}

/** Retry and stream knobs (tests); `setting` names where the model name was configured, for messages. */
export interface ClientOptions {
  tuning?: RetryTuning & StreamTuning;
  /** e.g. "models.ollama.model in config/models.yaml, or --model" (default: "the model in models.yaml, or --model"). */
  setting?: string;
}


/**
 * Creates the Ollama client for one models.yaml entry. The host comes from `config.base_url`,
 * else `env.OLLAMA_HOST`, else http://127.0.0.1:11434 (see resolveOllamaHost). Nothing is
 * contacted until the first request. Each generate streams the reply and sends a num_ctx sized to the
 * prompt, within the model's context length (from /api/show, once per model).
 * @throws ConfigError when the host cannot be read.
 */
export function createOllamaClient(
  config: ModelConfig,
  env: NodeJS.ProcessEnv,
  tuning?: RetryTuning & StreamTuning,
  options: Omit<ClientOptions, 'tuning'> = {},
): OllamaClient {
  const host = resolveOllamaHost(config.base_url, env);
  const setting = options.setting ?? DEFAULT_MODEL_SETTING;
  const contextLengths = new Map<string, Promise<number | undefined>>();
  /** The largest num_ctx sent so far: the window only grows, so Ollama does not reload the model to shrink it. */
  let numCtxFloor = 0;
  /** Models whose unknown context length the user was told about (once per model). */
  const toldUnknown = new Set<string>();

  // Each attempt gets its own instance whose fetch carries the attempt's signal (the package passes none on
  // non-streamed requests) and caps the answer's size.
  const connect = (signal: AbortSignal, maxBytes?: number) => new Ollama({ host, fetch: boundedFetch(signal, maxBytes) });

  const run = <T>(
    attempt: (ollama: Ollama, signal: AbortSignal) => Promise<T>,
    signal: AbortSignal | undefined,
    model: string,
    onProgress?: (p: LlmProgress) => void,
    maxBytes?: number,
    listing = false,
  ) =>
    requestWithRetries({
      provider: PROVIDER,
      timeoutMs: config.timeout_ms,
      maxRetries: config.max_retries,
      signal,
      tuning,
      ...(onProgress ? { onProgress } : {}),
      attempt: (attemptSignal) => attempt(connect(attemptSignal, maxBytes), attemptSignal),
      // While listing, a 404 must not list again.
      describe: (err) => describeOllamaFailure(err, host, model, setting, listing ? async () => [] : () => listModels()),
    });

  const listModels = async (opts: { signal?: AbortSignal } = {}): Promise<ProviderModel[]> => {
    const { value } = await run((ollama) => ollama.list(), opts.signal, config.model, undefined, MAX_MODEL_LIST_BYTES, true);
    const models = (value as { models?: unknown } | null)?.models;
    if (!Array.isArray(models)) throw new LlmRequestError(PROVIDER, `the model list from ${host}/api/tags is not in Ollama's format`);
    return models.slice(0, MAX_LISTED_MODELS).flatMap((m): ProviderModel[] => {
      const entry = (m ?? {}) as { name?: unknown; model?: unknown; details?: { family?: unknown; families?: unknown } | null };
      const name = entry.name ?? entry.model;
      if (typeof name !== 'string' || name.length === 0 || name.length >= 300) return [];
      const families = [entry.details?.family, ...(Array.isArray(entry.details?.families) ? entry.details.families : [])].filter(
        (f): f is string => typeof f === 'string',
      );
      return [{ name, ...(families.length ? { families: [...new Set(families)] } : {}) }];
    });
  };

  /** The model's context length from /api/show (undefined when it names none); a missing model throws ModelNotFoundError. */
  const contextLength = (model: string, signal: AbortSignal | undefined): Promise<number | undefined> => {
    let known = contextLengths.get(model);
    if (!known) {
      known = run((ollama) => ollama.show({ model }), signal, model, undefined, MAX_MODEL_LIST_BYTES).then(({ value }) => contextLengthOf(value));
      contextLengths.set(model, known);
      known.catch(() => contextLengths.delete(model)); // a failure is asked again next time
    }
    return known;
  };

  return {
    provider: PROVIDER,
    model: config.model,
    host,
    setting,
    listModels,

    async generate(asked: GenerateRequest): Promise<GenerateResult> {
      const request = applyModelSettings(asked, config);
      const { onProgress } = request;
      const messages: Message[] = [];
      if (request.system) messages.push({ role: 'system', content: request.system });
      messages.push({
        role: 'user',
        content: request.prompt,
        ...(request.images?.length ? { images: request.images.map((image) => Buffer.from(image.data).toString('base64')) } : {}),
      });
      // The entry's context_tokens, when set, is the window (e.g. smaller, to save memory); else what /api/show says.
      const known = config.context_tokens ?? (await contextLength(config.model, request.signal));
      if (known === undefined && onProgress && !toldUnknown.has(config.model)) {
        toldUnknown.add(config.model);
        onProgress({ kind: 'notice', message: `${config.model} does not report its context length; assuming ${FALLBACK_CONTEXT_TOKENS} tokens.` });
      }
      const sizing = sizeNumCtx({
        prompt: `${request.system ?? ''}\n${request.prompt}`,
        ...(request.maxOutputTokens !== undefined ? { answerTokens: request.maxOutputTokens } : {}),
        contextLength: known ?? FALLBACK_CONTEXT_TOKENS,
        floor: numCtxFloor,
      });
      numCtxFloor = sizing.numCtx;
      if (!sizing.fits) {
        onProgress?.({
          kind: 'notice',
          message:
            `The prompt is about ${sizing.promptTokens} tokens and ${config.model} reads at most ${sizing.numCtx}: ` +
            'its beginning will be cut. Use a model with a larger context, or fewer MCP servers.',
        });
      }
      const options = {
        num_ctx: sizing.numCtx,
        ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
        ...(request.maxOutputTokens !== undefined ? { num_predict: request.maxOutputTokens } : {}),
      };
      const { value, latencyMs } = await run(
        async (ollama, signal) => {
          const stream = await ollama.chat({
            model: config.model,
            messages,
            stream: true,
            ...(request.jsonSchema ? { format: request.jsonSchema } : {}),
            options,
          });
          return readStream<ChatResponse>({
            chunks: stream,
            textOf: (chunk) => (typeof chunk?.message?.content === 'string' ? chunk.message.content : ''),
            isFinal: (chunk) => chunk?.done === true,
            stop: () => stream.abort(),
            ...(onProgress ? { onProgress } : {}),
            ...(tuning ? { tuning } : {}),
          }).finally(() => signal.aborted && stream.abort());
        },
        request.signal,
        config.model,
        onProgress,
      );
      return {
        text: value.text,
        model: config.model,
        usage: { promptTokens: value.last?.prompt_eval_count ?? 0, completionTokens: value.last?.eval_count ?? 0 },
        latencyMs,
        ...(value.last?.done_reason === 'length' ? { hitOutputLimit: true } : {}),
      };
    },

    embed(texts: string[], options: { signal?: AbortSignal } = {}): Promise<EmbedResult> {
      return embedInBatches({
        provider: PROVIDER,
        model: config.model,
        embeddingModel: config.embedding_model,
        texts,
        batchMax: OLLAMA_EMBED_BATCH_MAX,
        embedBatch: async (model, batch) => {
          const result = await run((ollama) => ollama.embed({ model, input: batch }), options.signal, model);
          return { vectors: checkEmbeddings(result.value, batch.length, host), latencyMs: result.latencyMs };
        },
      });
    },
  };
}

function checkEmbeddings(response: EmbedResponse, expected: number, host: string): number[][] {
  const embeddings = response?.embeddings;
  const ok =
    Array.isArray(embeddings) &&
    embeddings.length === expected &&
    embeddings.every((v) => Array.isArray(v) && v.every((x) => typeof x === 'number'));
  if (!ok) {
    throw new LlmRequestError(PROVIDER, `answer from ${host}/api/embed does not hold ${expected} embeddings`);
  }
  return embeddings;
}

/**
 * Classifies a failed Ollama attempt; messages say how to fix the usual causes. A refused connection is not
 * retried (nothing listens; waiting will not start it). A missing model becomes ModelNotFoundError with the
 * pulled models listed.
 */
async function describeOllamaFailure(
  err: unknown,
  host: string,
  model: string,
  setting: string,
  listModels: () => Promise<ProviderModel[]>,
): Promise<AttemptFailure> {
  const streamed = describeStreamFailure(err);
  if (streamed) return streamed;
  const status = (err as { status_code?: unknown }).status_code;
  if (typeof status === 'number') {
    const detail = errorMessage(err);
    if (status === 404 && /not found/i.test(detail)) {
      return modelNotFoundFailure(err, status, detail, { provider: PROVIDER, model, setting }, async () => (await listModels()).map((m) => m.name));
    }
    return { status, retryable: isRetryableStatus(status), message: `HTTP ${status} from ${host}: ${detail}` };
  }
  const code = networkErrorCode(err);
  if (code === 'ECONNREFUSED') {
    return {
      retryable: false,
      reason: 'connection refused',
      message: `Ollama is not running at ${host}: start it with \`ollama serve\`, or set OLLAMA_HOST (or base_url in models.yaml) to a running server`,
    };
  }
  if (code) return { retryable: true, message: `cannot reach ${host} (${code}): ${errorMessage(err)}` };
  return { retryable: false, message: `request to ${host} failed: ${errorMessage(err)}` };
}

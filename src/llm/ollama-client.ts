// LlmClient for a local Ollama server, through the `ollama` npm package (/api/chat and /api/embed).
import { Ollama, type ChatResponse, type EmbedResponse, type Message } from 'ollama';
import { embedInBatches } from './embed-in-batches.js';
import type { ModelConfig } from '../config/models.js';
import { LlmRequestError, errorMessage } from '../errors.js';
import { resolveOllamaHost } from './ollama-host.js';
import { isRetryableStatus, networkErrorCode, requestWithRetries, type AttemptFailure, type RetryTuning } from './retry.js';
import type { EmbedResult, GenerateRequest, GenerateResult, LlmClient } from './types.js';

const PROVIDER = 'ollama';
/** Texts per /api/embed request: keeps each request well inside timeout_ms on a CPU. */
export const OLLAMA_EMBED_BATCH_MAX = 64;

/** An Ollama client; `host` is the server it talks to (for messages and `--verbose`). */
export interface OllamaClient extends LlmClient {
  readonly provider: 'ollama';
  readonly host: string;
}

/**
 * Creates the Ollama client for one models.yaml entry. The host comes from `config.base_url`,
 * else `env.OLLAMA_HOST`, else http://127.0.0.1:11434 (see resolveOllamaHost). Nothing is
 * contacted until the first request.
 * @throws ConfigError when the host cannot be read.
 */
export function createOllamaClient(config: ModelConfig, env: NodeJS.ProcessEnv, tuning?: RetryTuning): OllamaClient {
  const host = resolveOllamaHost(config.base_url, env);

  // The package passes no AbortSignal on non-streamed requests, so each request gets its own
  // instance whose fetch carries the request's signal (timeouts and caller aborts).
  const connect = (signal: AbortSignal) =>
    new Ollama({ host, fetch: (input, init) => fetch(input, { ...init, signal }) });

  const run = <T>(attempt: (ollama: Ollama) => Promise<T>, signal: AbortSignal | undefined, what: string) =>
    requestWithRetries({
      provider: PROVIDER,
      timeoutMs: config.timeout_ms,
      maxRetries: config.max_retries,
      signal,
      tuning,
      attempt: (attemptSignal) => attempt(connect(attemptSignal)),
      describe: (err) => describeOllamaFailure(err, host, what),
    });

  return {
    provider: PROVIDER,
    model: config.model,
    host,

    async generate(request: GenerateRequest): Promise<GenerateResult> {
      const messages: Message[] = [];
      if (request.system) messages.push({ role: 'system', content: request.system });
      messages.push({
        role: 'user',
        content: request.prompt,
        ...(request.images?.length ? { images: request.images.map((image) => Buffer.from(image.data).toString('base64')) } : {}),
      });
      const options = {
        ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
        ...(request.maxOutputTokens !== undefined ? { num_predict: request.maxOutputTokens } : {}),
      };
      const { value, latencyMs } = await run(
        (ollama) =>
          ollama.chat({
            model: config.model,
            messages,
            stream: false,
            ...(request.jsonSchema ? { format: request.jsonSchema } : {}),
            ...(Object.keys(options).length > 0 ? { options } : {}),
          }) as Promise<ChatResponse>,
        request.signal,
        config.model,
      );
      const text = value?.message?.content;
      if (typeof text !== 'string') {
        throw new LlmRequestError(PROVIDER, `answer from ${host}/api/chat has no message.content`);
      }
      return {
        text,
        model: config.model,
        usage: { promptTokens: value.prompt_eval_count ?? 0, completionTokens: value.eval_count ?? 0 },
        latencyMs,
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

/** Classifies a failed Ollama attempt; messages say how to fix the usual causes. */
function describeOllamaFailure(err: unknown, host: string, model: string): AttemptFailure {
  const status = (err as { status_code?: unknown }).status_code;
  if (typeof status === 'number') {
    const detail = errorMessage(err);
    const hint = status === 404 && /not found/i.test(detail) ? ` (run \`ollama pull ${model}\`)` : '';
    return { status, retryable: isRetryableStatus(status), message: `HTTP ${status} from ${host}: ${detail}${hint}` };
  }
  const code = networkErrorCode(err);
  if (code === 'ECONNREFUSED') {
    return {
      retryable: true,
      message:
        `nothing answers at ${host} (${code}): start Ollama with \`ollama serve\` and \`ollama pull ${model}\`, ` +
        'or point OLLAMA_HOST / base_url in models.yaml at a running server',
    };
  }
  if (code) return { retryable: true, message: `cannot reach ${host} (${code}): ${errorMessage(err)}` };
  return { retryable: false, message: `request to ${host} failed: ${errorMessage(err)}` };
}

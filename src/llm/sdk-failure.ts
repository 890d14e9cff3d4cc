// Classifies a failed request of the OpenAI and Anthropic SDKs (both throw APIError with status, headers and body).
import { errorMessage } from '../errors.js';
import { modelNotFoundFailure } from './check-model.js';
import { describeStreamFailure } from './read-stream.js';
import { isRetryableStatus, networkErrorCode, type AttemptFailure } from './retry.js';
import type { ProviderModel } from './types.js';

/** What a describer needs to word a failure: where, with which key, for which model. */
export interface SdkFailureContext {
  provider: string;
  /** Plain name of the provider for messages, e.g. "OpenAI-compatible server", "Anthropic". */
  title: string;
  endpoint: string;
  /** The variable the key came from (never the key), or undefined when none was sent. */
  keySource: string | undefined;
  /** The variables that set the endpoint, for the "nothing answers" hint (e.g. "OPENAI_BASE_URL / base_url in models.yaml"). */
  endpointSetting: string;
  model: string;
  setting: string;
  /** The key itself, only to blank it out of any message a server echoes. */
  secret: string | undefined;
  listModels: () => Promise<ProviderModel[]>;
}

/** Words of a 400 that say the prompt does not fit the model's window (OpenAI, vLLM, llama-server, LM Studio, Anthropic). */
const CONTEXT_OVERFLOW = /context[_ ]length|context window|maximum context|too many tokens|prompt is too long|exceeds? the (available )?context|n_ctx/i;

/**
 * Classifies a failed attempt: a bad key points at its variable; a 404 for the model lists the models that exist;
 * a 429 waits as long as retry-after asks; a prompt longer than the context says so with the server's words;
 * a refused connection is not retried. A message never holds the key.
 */
export async function describeSdkFailure(err: unknown, context: SdkFailureContext): Promise<AttemptFailure> {
  const streamed = describeStreamFailure(err);
  if (streamed) return streamed;
  const { provider, title, endpoint, keySource, model, setting } = context;
  const hide = (text: string) => (context.secret && context.secret.length >= 4 ? text.split(context.secret).join('***') : text);
  const status = (err as { status?: unknown }).status;
  if (typeof status === 'number') {
    const detail = hide(serverMessage(err));
    if (status === 404 && isModelMissing(err, detail, model)) {
      return modelNotFoundFailure(err, status, detail, { provider, model, setting }, async () => (await context.listModels()).map((m) => m.name));
    }
    if (status === 401 || status === 403) {
      const hint = keySource ? `check the key in ${keySource}` : `${title} wants a key: set api_key_env in models.yaml`;
      return { status, retryable: false, message: `HTTP ${status}: ${detail} (${hint})` };
    }
    if (status === 400 || status === 413) {
      if (CONTEXT_OVERFLOW.test(detail) || errorCode(err) === 'context_length_exceeded') {
        return {
          status,
          retryable: false,
          reason: 'prompt too long',
          message: `HTTP ${status}: the prompt is longer than ${model} reads (${detail}). Use fewer MCP servers, or a model with a larger context.`,
        };
      }
    }
    if (status === 404) {
      // Not about the model: most often a base URL without the server's /v1.
      return { status, retryable: false, message: `HTTP 404 from ${endpoint}: ${detail} (check ${context.endpointSetting}: OpenAI-compatible servers usually end in /v1)` };
    }
    const retryAfterMs = status === 429 || status === 503 ? retryAfterOf(err) : undefined;
    return {
      status,
      retryable: isRetryableStatus(status),
      message: `HTTP ${status} from ${endpoint}: ${detail}`,
      ...(status === 429 ? { reason: 'rate limited' } : {}),
      ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
    };
  }
  const code = networkErrorCode(err);
  if (code === 'ECONNREFUSED') {
    return { retryable: false, reason: 'connection refused', message: `nothing answers at ${endpoint} (connection refused): check ${context.endpointSetting}` };
  }
  if (code) return { retryable: true, message: `cannot reach ${endpoint} (${code}): check the network, or ${context.endpointSetting}` };
  return { retryable: false, message: `request to ${endpoint} failed: ${hide(errorMessage(err))}` };
}

/** The server's own words: the body's error.message (both APIs), else the SDK's message. */
function serverMessage(err: unknown): string {
  const body = (err as { error?: unknown }).error as { message?: unknown; error?: { message?: unknown } } | undefined;
  const message = body?.error?.message ?? body?.message;
  return typeof message === 'string' && message.trim() ? message.trim() : errorMessage(err);
}

function errorCode(err: unknown): string | undefined {
  const e = err as { code?: unknown; error?: { code?: unknown; error?: { code?: unknown } } };
  const code = e.code ?? e.error?.code ?? e.error?.error?.code;
  return typeof code === 'string' ? code : undefined;
}

/** A 404 about the model (OpenAI's model_not_found, Anthropic's "model: NAME", or a message naming it), not a wrong path. */
function isModelMissing(err: unknown, detail: string, model: string): boolean {
  return errorCode(err) === 'model_not_found' || /model/i.test(detail) || detail.includes(model);
}

/** The wait a 429 asks for: retry-after-ms, else retry-after in seconds or as a date; undefined when absent or unreadable. */
export function retryAfterOf(err: unknown): number | undefined {
  const headers = (err as { headers?: unknown }).headers;
  if (!(headers instanceof Headers)) return undefined;
  const ms = Number(headers.get('retry-after-ms'));
  if (headers.get('retry-after-ms') !== null && Number.isFinite(ms) && ms >= 0) return Math.round(ms);
  const value = headers.get('retry-after');
  if (value === null) return undefined;
  const seconds = Number(value);
  if (value.trim() !== '' && Number.isFinite(seconds) && seconds >= 0) return Math.round(seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

// One LLM HTTP request with a per-attempt timeout, the caller's AbortSignal, and bounded retries with backoff.
import { setTimeout as delay } from 'node:timers/promises';
import { LlmRequestError, causeMatching } from '../errors.js';
import { untilAborted } from '../time/until-aborted.js';
import type { LlmProgress } from './types.js';

/** First backoff delay; it doubles per retry (1 s, 2 s, 4 s …) so a briefly overloaded API recovers. */
export const RETRY_BACKOFF_BASE_MS = 1_000;
/** Ceiling of one computed backoff delay, so max_retries = 10 cannot wait for minutes. */
export const RETRY_BACKOFF_MAX_MS = 20_000;
/** Ceiling of a server-requested wait (Gemini's RetryInfo on 429); longer asks are cut to this. */
export const RETRY_AFTER_MAX_MS = 60_000;

/** Socket-level error codes that mean "try again" rather than "the request is wrong". */
const RETRYABLE_NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EAI_AGAIN',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

/** Knobs tests turn so retries do not wait; production uses the defaults. */
export interface RetryTuning {
  /** Waits between attempts; must reject when `signal` aborts. Default: a real timer. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** First backoff delay in ms (default RETRY_BACKOFF_BASE_MS). */
  backoffBaseMs?: number;
  /** Source of jitter in [0, 1) (default Math.random). */
  random?: () => number;
}

/** What a provider makes of one failed attempt. */
export interface AttemptFailure {
  /** HTTP status, when the server answered. */
  status?: number;
  retryable: boolean;
  /** Short, human message (no provider prefix: LlmRequestError adds it). */
  message: string;
  /** The server asked us to wait this long before retrying (e.g. a 429's retry delay). */
  retryAfterMs?: number;
  /** A few plain words for progress displays, e.g. "HTTP 500", "connection reset" (default: from status or message). */
  reason?: string;
  /** The error to throw as it is (already typed and worded, e.g. ModelNotFoundError) instead of an LlmRequestError. */
  error?: Error;
}

export interface RequestWithRetriesOptions<T> {
  provider: string;
  /** Limit for each attempt; the attempt's signal aborts when it passes. */
  timeoutMs: number;
  /** Retries after the first attempt (so at most maxRetries + 1 attempts). */
  maxRetries: number;
  /** The caller's signal: aborting it stops the current attempt and any further ones. */
  signal?: AbortSignal;
  tuning?: RetryTuning;
  /** Makes one attempt; must pass `signal` on to the HTTP request. */
  attempt: (signal: AbortSignal) => Promise<T>;
  /** Classifies a failed attempt (HTTP status, network error, bad answer); may be async (e.g. to list the models that exist). */
  describe: (err: unknown) => AttemptFailure | Promise<AttemptFailure>;
  /** Told before each backoff wait (a `retry` progress event). Must not throw. */
  onProgress?: (progress: LlmProgress) => void;
}

/** True for HTTP statuses worth retrying: rate limiting, request timeout, server trouble. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

/** The socket error code (ECONNREFUSED, …) behind a failed fetch, if there is one. */
export function networkErrorCode(err: unknown): string | undefined {
  const found = causeMatching(err, (e) => RETRYABLE_NETWORK_CODES.has((e as { code?: string }).code ?? ''));
  return (found as { code?: string } | undefined)?.code;
}

/** Plain words for a socket error code, for "retrying after …" lines. */
const NETWORK_REASONS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection reset',
  UND_ERR_SOCKET: 'connection cut',
  ETIMEDOUT: 'network timeout',
  UND_ERR_CONNECT_TIMEOUT: 'network timeout',
  UND_ERR_HEADERS_TIMEOUT: 'network timeout',
  UND_ERR_BODY_TIMEOUT: 'network timeout',
  EAI_AGAIN: 'name lookup failed',
  ENOTFOUND: 'name lookup failed',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
};

/** A few plain words for a failed attempt: "HTTP 500", "connection reset", else the failure's own message. */
export function failureReason(failure: AttemptFailure, err: unknown): string {
  if (failure.reason) return failure.reason;
  if (failure.status !== undefined) return `HTTP ${failure.status}`;
  const code = networkErrorCode(err);
  return (code && NETWORK_REASONS[code]) ?? failure.message;
}

/** Backoff before retry number `retry` (0-based): exponential, capped, with "equal jitter" (half fixed, half random). */
export function backoffDelayMs(retry: number, baseMs: number, random: () => number): number {
  const ceiling = Math.min(RETRY_BACKOFF_MAX_MS, baseMs * 2 ** retry);
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

async function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  await delay(ms, undefined, { signal });
}

/**
 * Runs `attempt` until it succeeds, with a fresh timeout per attempt, retrying failures that
 * `describe` marks retryable up to `maxRetries` times. Timeouts are not retried: on a local model
 * a timeout usually means "too slow", and retrying would multiply the wait.
 * Returns the value and the latency of the whole call (retries and waits included).
 * @throws LlmRequestError (with `status` when the server answered) on timeout, caller abort,
 *   a non-retryable failure, or when the retries run out; its cause holds every attempt's error.
 */
export async function requestWithRetries<T>(
  options: RequestWithRetriesOptions<T>,
): Promise<{ value: T; latencyMs: number }> {
  const { provider, timeoutMs, maxRetries, signal, tuning = {}, attempt, describe, onProgress } = options;
  const { sleep = defaultSleep, backoffBaseMs = RETRY_BACKOFF_BASE_MS, random = Math.random } = tuning;
  const started = performance.now();
  const errors: unknown[] = [];
  const aborted = (cause: unknown) =>
    new LlmRequestError(provider, 'request aborted by the caller', undefined, { cause });

  for (let attemptNo = 0; attemptNo <= maxRetries; attemptNo++) {
    if (signal?.aborted) throw aborted(signal.reason);
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(new Error(`timed out after ${timeoutMs} ms`)), timeoutMs);
    const attemptSignal = signal ? AbortSignal.any([signal, timeout.signal]) : timeout.signal;
    try {
      // Racing the abort bounds the wait even if a library ignored the signal somewhere; the race's listener goes
      // when the attempt settles, so a question aborted later does not wake every request it made.
      const value = await untilAborted(attempt(attemptSignal), attemptSignal);
      return { value, latencyMs: performance.now() - started };
    } catch (err) {
      if (signal?.aborted) throw aborted(err);
      if (timeout.signal.aborted) {
        throw new LlmRequestError(
          provider,
          `no answer within ${timeoutMs} ms (raise timeout_ms in models.yaml for slow models)`,
          undefined,
          { cause: err },
        );
      }
      errors.push(err);
      const failure = await describe(err);
      if (failure.error) throw failure.error;
      if (!failure.retryable || attemptNo === maxRetries) {
        const tries = errors.length > 1 ? ` (gave up after ${errors.length} attempts)` : '';
        const cause = errors.length > 1 ? new AggregateError(errors, 'every attempt failed') : err;
        throw new LlmRequestError(provider, `${failure.message}${tries}`, failure.status, { cause });
      }
      const waitMs =
        failure.retryAfterMs !== undefined
          ? Math.min(failure.retryAfterMs, RETRY_AFTER_MAX_MS)
          : backoffDelayMs(attemptNo, backoffBaseMs, random);
      onProgress?.({ kind: 'retry', attempt: attemptNo + 2, maxAttempts: maxRetries + 1, reason: failureReason(failure, err), delayMs: waitMs });
      try {
        await sleep(waitMs, signal);
      } catch (sleepErr) {
        throw aborted(sleepErr);
      }
    } finally {
      clearTimeout(timer);
    }
  }
  // Unreachable: the last attempt either returns or throws above.
  throw new LlmRequestError(provider, `no attempt was made (max_retries ${maxRetries})`);
}

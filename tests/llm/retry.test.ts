import { describe, expect, it } from 'vitest';
import { LlmRequestError } from '../../src/errors.js';
import {
  RETRY_AFTER_MAX_MS,
  RETRY_BACKOFF_MAX_MS,
  backoffDelayMs,
  networkErrorCode,
  requestWithRetries,
} from '../../src/llm/retry.js';

describe('backoffDelayMs', () => {
  it('doubles per retry, with jitter between half and the whole step', () => {
    expect(backoffDelayMs(0, 1000, () => 0)).toBe(500);
    expect(backoffDelayMs(0, 1000, () => 0.999999)).toBe(1000);
    expect(backoffDelayMs(2, 1000, () => 0)).toBe(2000);
  });

  it('never exceeds the ceiling however many retries', () => {
    expect(backoffDelayMs(30, 1000, () => 0.999999)).toBeLessThanOrEqual(RETRY_BACKOFF_MAX_MS);
  });
});

describe('networkErrorCode', () => {
  it('finds the socket code nested in a fetch failure', () => {
    const socket = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    expect(networkErrorCode(new TypeError('fetch failed', { cause: socket }))).toBe('ECONNREFUSED');
  });

  it('returns undefined for an error that is not a network error', () => {
    expect(networkErrorCode(new SyntaxError('bad JSON'))).toBeUndefined();
  });
});

describe('requestWithRetries', () => {
  it('caps a server-requested wait', async () => {
    const waits: number[] = [];
    let calls = 0;
    const { value } = await requestWithRetries({
      provider: 'test',
      timeoutMs: 5_000,
      maxRetries: 1,
      tuning: { sleep: async (ms) => void waits.push(ms) },
      attempt: async () => {
        calls += 1;
        if (calls === 1) throw new Error('slow down');
        return 'ok';
      },
      describe: () => ({ status: 429, retryable: true, message: 'slow down', retryAfterMs: 10 * RETRY_AFTER_MAX_MS }),
    });
    expect(value).toBe('ok');
    expect(waits).toEqual([RETRY_AFTER_MAX_MS]);
  });

  it('stops waiting between attempts when the caller aborts', async () => {
    const controller = new AbortController();
    const attempt = requestWithRetries({
      provider: 'test',
      timeoutMs: 5_000,
      maxRetries: 3,
      signal: controller.signal,
      tuning: {
        sleep: (_ms, signal) =>
          new Promise((_, reject) => {
            signal?.addEventListener('abort', () => reject(new Error('aborted')));
            controller.abort();
          }),
      },
      attempt: async () => {
        throw new Error('down');
      },
      describe: () => ({ status: 503, retryable: true, message: 'down' }),
    });
    await expect(attempt).rejects.toThrow(LlmRequestError);
    await expect(attempt).rejects.toThrow(/aborted by the caller/);
  });
});

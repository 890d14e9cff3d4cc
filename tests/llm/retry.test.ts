import { getEventListeners } from 'node:events';
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

  it('leaves nothing listening once a request has answered, so a question stopped later wakes none of its finished requests', async () => {
    const question = new AbortController();
    const seen: AbortSignal[] = [];
    for (let i = 0; i < 3; i++) {
      await requestWithRetries({
        provider: 'test',
        timeoutMs: 5_000,
        maxRetries: 0,
        signal: question.signal,
        attempt: async (attemptSignal) => (seen.push(attemptSignal), 'ok'),
        describe: () => ({ retryable: false, message: 'unused' }),
      });
    }
    expect(seen.map((s) => getEventListeners(s, 'abort').length)).toEqual([0, 0, 0]);
    expect(getEventListeners(question.signal, 'abort')).toHaveLength(0);
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

describe('requestWithRetries progress', () => {
  it('tells each retry before its wait: the next attempt, the most attempts, the reason in plain words and the wait', async () => {
    const events: unknown[] = [];
    const failures = [
      Object.assign(new Error('server said 502'), { status: 502 }),
      new TypeError('fetch failed', { cause: Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }) }),
    ];
    const { value } = await requestWithRetries({
      provider: 'test',
      timeoutMs: 5_000,
      maxRetries: 3,
      tuning: { sleep: async () => undefined, backoffBaseMs: 100, random: () => 0 },
      onProgress: (p) => events.push(p),
      attempt: async () => {
        const failure = failures.shift();
        if (failure) throw failure;
        return 'ok';
      },
      describe: (err) => ({ retryable: true, message: String(err), ...((err as { status?: number }).status ? { status: (err as { status: number }).status } : {}) }),
    });
    expect(value).toBe('ok');
    expect(events).toEqual([
      { kind: 'retry', attempt: 2, maxAttempts: 4, reason: 'HTTP 502', delayMs: 50 },
      { kind: 'retry', attempt: 3, maxAttempts: 4, reason: 'connection reset', delayMs: 100 },
    ]);
  });

  it('throws the typed error a description carries, without retrying', async () => {
    const typed = new LlmRequestError('test', 'model "m" is not available', 404);
    let calls = 0;
    const error = await requestWithRetries({
      provider: 'test',
      timeoutMs: 5_000,
      maxRetries: 3,
      attempt: async () => {
        calls++;
        throw new Error('404');
      },
      describe: async () => ({ retryable: false, message: '404', error: typed }),
    }).catch((e: unknown) => e);
    expect(error).toBe(typed);
    expect(calls).toBe(1);
  });
});

// Shared set-up of the LLM client tests: fake servers closed after each test, retries that never sleep.
import { afterEach } from 'vitest';
import type { RetryTuning } from '../../src/llm/retry.js';
import type { FakeLlmServer } from '../helpers/fake-ollama-server.js';

/** Wraps a fake-server starter so every server it starts is closed after each test. */
export function fakeServers<A extends unknown[]>(start: (...args: A) => Promise<FakeLlmServer>): (...args: A) => Promise<FakeLlmServer> {
  const servers: FakeLlmServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });
  return async (...args) => {
    const server = await start(...args);
    servers.push(server);
    return server;
  };
}

/** Records the backoff waits instead of sleeping. */
export function instantRetries(): RetryTuning & { waits: number[] } {
  const waits: number[] = [];
  return { waits, sleep: async (ms) => void waits.push(ms), backoffBaseMs: 100, random: () => 0 };
}

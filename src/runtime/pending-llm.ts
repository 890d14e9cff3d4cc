// The LLM of `cortex serve` and `cortex mcp` when none was reachable at start: each request looks again.
import { LlmUnavailableError } from '../errors.js';
import type { LlmClient } from '../llm/types.js';

/** The stand-in client; `ready()` connects now (or throws LlmUnavailableError with the setup advice). */
export interface PendingLlm extends LlmClient {
  ready(): Promise<LlmClient>;
}

/**
 * An LlmClient standing in until a model is reachable: every generate/embed first tries `connect` again
 * (resolveTextModel: a Gemini key set since, or an Ollama that now answers, probed within its own bound);
 * once it succeeds, that client answers from then on. Until then each request fails with
 * LlmUnavailableError carrying the setup advice, so sessions and documents can be browsed meanwhile.
 */
export function pendingLlm(connect: () => Promise<LlmClient>): PendingLlm {
  let client: LlmClient | null = null;
  let connecting: Promise<LlmClient> | null = null;
  const ready = async (): Promise<LlmClient> => {
    if (client) return client;
    // Requests arriving together share one attempt.
    connecting ??= connect().finally(() => (connecting = null));
    try {
      client = await connecting;
      return client;
    } catch (err) {
      if (err instanceof LlmUnavailableError) throw new LlmUnavailableError(`No LLM is reachable, so the question cannot be answered. ${err.message}`, { cause: err });
      throw err;
    }
  };
  return {
    ready,
    get provider() {
      return client?.provider ?? 'none';
    },
    get model() {
      return client?.model ?? 'none';
    },
    generate: async (request) => (await ready()).generate(request),
    embed: async (texts, options) => (await ready()).embed(texts, options),
  };
}

// Sends the user's standing instructions (AGENTS.md) as the system instruction of every decision request.
import type { LlmClient } from './types.js';

/**
 * A client that adds `instructions` to the system instruction of requests whose stage is 'decision' (the plans),
 * leaving other requests as they are. Returns `inner` itself when there are no instructions.
 */
export function instructedLlm(inner: LlmClient, instructions: string): LlmClient {
  if (instructions.trim() === '') return inner;
  return {
    get provider() {
      return inner.provider;
    },
    get model() {
      return inner.model;
    },
    ...(inner.modelFor ? { modelFor: (stage) => inner.modelFor!(stage) } : {}),
    generate: (request) =>
      inner.generate(request.stage === 'decision' ? { ...request, system: request.system ? `${request.system}\n\n${instructions}` : instructions } : request),
    embed: (texts, options) => inner.embed(texts, options),
    ...(inner.listModels ? { listModels: (options?: { signal?: AbortSignal }) => inner.listModels!(options) } : {}),
  };
}

// A decorator seam for LLM clients: the same client with `generate` replaced (hooks, budgets), name and model read live.
import type { GenerateRequest, GenerateResult, LlmClient } from './types.js';

/** `llm` whose requests go through `generate`; provider and model are read from `llm` each time (they may change). */
export function withGenerate(llm: LlmClient, generate: (request: GenerateRequest) => Promise<GenerateResult>): LlmClient {
  return {
    get provider() {
      return llm.provider;
    },
    get model() {
      return llm.model;
    },
    generate,
    embed: (texts, options) => llm.embed(texts, options),
    ...(llm.listModels ? { listModels: (options?: { signal?: AbortSignal }) => llm.listModels!(options) } : {}),
  };
}

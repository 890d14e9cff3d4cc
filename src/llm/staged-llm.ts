// One LlmClient that sends each agent stage's requests to its own model (profiles.yaml llm.perception / llm.decision).
import type { LlmClient, LlmStageName } from './types.js';

/**
 * A client answering with `base`, except requests whose `stage` has a client in `stages`. Embedding and the model
 * list are the base's. Returns `base` itself when no stage has its own client.
 */
export function stagedLlm(base: LlmClient, stages: Partial<Record<LlmStageName, LlmClient>>): LlmClient {
  const routed = Object.entries(stages).filter(([, client]) => client !== undefined) as [LlmStageName, LlmClient][];
  if (routed.length === 0) return base;
  const clientFor = (stage: LlmStageName | undefined) => (stage ? stages[stage] : undefined) ?? base;
  return {
    provider: base.provider,
    model: base.model,
    modelFor: (stage) => clientFor(stage).model,
    generate: (request) => clientFor(request.stage).generate(request),
    embed: (texts, options) => base.embed(texts, options),
    ...(base.listModels ? { listModels: (options?: { signal?: AbortSignal }) => base.listModels!(options) } : {}),
  };
}

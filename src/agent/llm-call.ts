// One timed LLM request as the agent stages make it, with what the trace and the run's totals need to know.
import { errorMessage } from '../errors.js';
import type { GenerateRequest, GenerateResult, LlmClient } from '../llm/types.js';

/** What a stage reports about its LLM request, answered or failed. */
export interface LlmCallInfo {
  model: string;
  promptTokens: number;
  completionTokens: number;
  /** Wall time around generate(), measured here so every client is timed the same way. */
  latencyMs: number;
  /** Set when the request failed. */
  error?: string;
}

/** The answer (or the error) of one request, with its call info either way. */
export type TimedGeneration =
  | { ok: true; result: GenerateResult; call: LlmCallInfo }
  | { ok: false; error: unknown; call: LlmCallInfo };

/** Sends one request and times it; never throws, so the caller decides what a failure means. */
export async function timedGenerate(llm: LlmClient, request: GenerateRequest): Promise<TimedGeneration> {
  const started = performance.now();
  try {
    const result = await llm.generate(request);
    const call: LlmCallInfo = {
      model: result.model || llm.model,
      promptTokens: result.usage.promptTokens,
      completionTokens: result.usage.completionTokens,
      latencyMs: performance.now() - started,
    };
    return { ok: true, result, call };
  } catch (error) {
    const call: LlmCallInfo = {
      model: llm.model,
      promptTokens: 0,
      completionTokens: 0,
      latencyMs: performance.now() - started,
      error: errorMessage(error),
    };
    return { ok: false, error, call };
  }
}

// One timed LLM request as the agent stages make it, with what the trace and the run's totals need to know.
import { errorMessage } from '../errors.js';
import type { GenerateRequest, GenerateResult, LlmClient, LlmProgress } from '../llm/types.js';
import type { AgentEvent, LlmStage } from './types.js';

/** Rough characters per token, for the prompt size shown before the provider has counted it. */
const CHARS_PER_TOKEN_ESTIMATE = 4;

/** Where a request's live events go: the stage and step they belong to, and the run's event sink. */
export interface LlmEventFrame {
  stage: LlmStage;
  step: number;
  emit: (event: AgentEvent) => void;
}

/** The agent event that stands for one progress report of a client. */
function progressEvent(progress: LlmProgress, { stage, step }: LlmEventFrame): AgentEvent {
  switch (progress.kind) {
    case 'text':
      return { type: 'llm_text', stage, step, delta: progress.delta, completionTokens: progress.completionTokens };
    case 'retry':
      return { type: 'llm_retry', stage, step, attempt: progress.attempt, maxAttempts: progress.maxAttempts, reason: progress.reason, delayMs: progress.delayMs };
    case 'notice':
      return { type: 'llm_notice', stage, step, message: progress.message };
  }
}

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

/**
 * Sends one request and times it; never throws, so the caller decides what a failure means.
 * With a `frame`, the request is framed by llm_start … llm_end events and the client's progress becomes llm_* events.
 */
export async function timedGenerate(llm: LlmClient, request: GenerateRequest, frame?: LlmEventFrame): Promise<TimedGeneration> {
  const generation = await generateTimed(llm, frame ? withEvents(request, llm, frame) : request);
  if (frame) {
    const { stage, step, emit } = frame;
    const { model, promptTokens, completionTokens, latencyMs, error } = generation.call;
    emit({ type: 'llm_end', stage, step, model, promptTokens, completionTokens, latencyMs: Math.round(latencyMs), ...(error !== undefined ? { error } : {}) });
  }
  return generation;
}

/** The request with its progress also sent as events, after llm_start. */
function withEvents(request: GenerateRequest, llm: LlmClient, frame: LlmEventFrame): GenerateRequest {
  const { stage, step, emit } = frame;
  const promptChars = request.prompt.length + (request.system?.length ?? 0);
  emit({ type: 'llm_start', stage, step, model: llm.modelFor?.(stage) ?? llm.model, promptTokens: Math.ceil(promptChars / CHARS_PER_TOKEN_ESTIMATE) });
  return {
    ...request,
    // A client that serves stages with different models routes by it (profiles.yaml llm.perception / llm.decision).
    stage,
    onProgress: (progress) => {
      request.onProgress?.(progress);
      emit(progressEvent(progress, frame));
    },
  };
}

async function generateTimed(llm: LlmClient, request: GenerateRequest): Promise<TimedGeneration> {
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

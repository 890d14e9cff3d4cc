// A decision reply cut off mid-code is continued: the model is asked to go on from where it stopped and the parts are joined.
import { causeMatching } from '../errors.js';
import { StreamFailure } from '../llm/read-stream.js';
import type { GenerateRequest, GenerateResult, LlmClient } from '../llm/types.js';
import { continueReply } from '../model-messages.js';
import { endsMidCode, joinContinuation } from '../reply/reply-continuation.js';
import { timedGenerate, type LlmCallInfo, type LlmEventFrame, type TimedGeneration } from './llm-call.js';

/**
 * Most continuations of one reply. Each costs a request with the reply so far in its prompt; two cover a plan
 * about three times the output limit, and a model that needs more is writing something too long to run anyway.
 */
export const MAX_CONTINUATIONS = 2;

/**
 * Sends the request; while the reply was cut off (the provider says the output limit was hit, the stream broke
 * off after text had arrived, or the reply ends inside an unfinished code block) and fewer than `maxContinuations` continuations were asked, asks the model for
 * the rest and joins it on. The call info adds up every request. A failed continuation keeps the reply so far
 * (the sandbox then says what is wrong with it), unless the caller aborted. Never throws.
 */
export async function generateWholeReply(
  llm: LlmClient,
  request: GenerateRequest,
  frame?: LlmEventFrame,
  maxContinuations = MAX_CONTINUATIONS,
): Promise<TimedGeneration> {
  const first = await timedGenerate(llm, request, frame);
  const dropped = first.ok || request.signal?.aborted ? '' : partialReply(first.error);
  if (!first.ok && dropped === '') return first;
  // A stream that broke off mid-reply is a cut reply too: what arrived is kept and continued.
  let result: GenerateResult = first.ok ? first.result : { text: dropped, model: first.call.model, usage: { promptTokens: 0, completionTokens: 0 }, latencyMs: first.call.latencyMs };
  let call: LlmCallInfo = first.ok ? first.call : withoutError(first.call);
  let text = result.text;
  let cut = !first.ok || Boolean(result.hitOutputLimit) || endsMidCode(text);
  for (let n = 0; n < maxContinuations && cut && text.trim() !== ''; n++) {
    const more = await timedGenerate(llm, { ...request, prompt: continueReply({ prompt: request.prompt, reply: text }) }, frame);
    if (!more.ok) {
      if (request.signal?.aborted) return { ok: false, error: more.error, call: add(call, more.call) };
      break;
    }
    text = joinContinuation(text, more.result.text);
    call = add(call, more.call);
    result = more.result;
    cut = Boolean(result.hitOutputLimit) || endsMidCode(text);
  }
  const usage = { promptTokens: call.promptTokens, completionTokens: call.completionTokens };
  return { ok: true, result: { ...result, text, usage, ...(cut ? { hitOutputLimit: true } : {}) }, call };
}

/** The reply text that arrived before the stream broke off (a StreamFailure among the causes), else ''. */
function partialReply(error: unknown): string {
  const failure = causeMatching(error, (e) => e instanceof StreamFailure && e.kind !== 'too_large') as StreamFailure | undefined;
  return failure?.partial.trim() ? failure.partial : '';
}

function withoutError({ error: _error, ...call }: LlmCallInfo): LlmCallInfo {
  return call;
}

function add(a: LlmCallInfo, b: LlmCallInfo): LlmCallInfo {
  return {
    model: a.model,
    promptTokens: a.promptTokens + b.promptTokens,
    completionTokens: a.completionTokens + b.completionTokens,
    latencyMs: a.latencyMs + b.latencyMs,
    ...(b.error !== undefined ? { error: b.error } : {}),
  };
}

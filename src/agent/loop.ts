// The agent loop: perceive once, then steps × lifelines of attempts (attempt.ts) until an answer (DESIGN §1).
import { STRATEGY_LIMITS } from '../config/limits.js';
import { QuestionStoppedError, UsageError } from '../errors.js';
import type { ToolInfo } from '../mcp/types.js';
import { DEFAULT_CONVERSATION_CHARS } from '../memory/conversation.js';
import type { CarriedResult } from '../model-messages.js';
import { attempt } from './attempt.js';
import { RunCancelled, throwIfAborted, untilAborted } from './cancelled.js';
import { compactConversation } from './compact.js';
import type { RetryFeedback } from './decision.js';
import { giveUpReason } from './outcome.js';
import { perceive } from './perception.js';
import { QuestionRun } from './question-run.js';
import type { AgentOptions, AgentRunResult } from './types.js';

/** Upper bounds on the profile's max_steps and max_lifelines_per_step (config/limits.ts), so a typo cannot loop for hours. */
export const MAX_STEPS_LIMIT = STRATEGY_LIMITS.maxSteps.max;
export const MAX_LIFELINES_LIMIT = STRATEGY_LIMITS.maxLifelinesPerStep.max;

function checkBounds(maxSteps: number, maxLifelinesPerStep: number): void {
  for (const [limit, value] of [[STRATEGY_LIMITS.maxSteps, maxSteps], [STRATEGY_LIMITS.maxLifelinesPerStep, maxLifelinesPerStep]] as const) {
    if (!Number.isInteger(value) || value < limit.min || value > limit.max) throw new UsageError(`${limit.key} must be an integer from ${limit.min} to ${limit.max}, not ${value}`);
  }
}

/**
 * Answers one question. Perception picks the servers once, then for each step (up to maxSteps) up to
 * maxLifelinesPerStep + 1 attempts (attempt.ts: decide → run → judge → record). FINAL_ANSWER (or a value
 * with no prefix) ends the run; FURTHER_PROCESSING_REQUIRED starts the next step with the original task
 * and every earlier step's result; a sandbox error or a refused value (undefined, NaN, "[object Object]"…)
 * costs a lifeline and the retry prompt carries the error and the failing reply.
 * Perception runs once per question, not per step or lifeline: every step works on the same task,
 * so the servers it needs do not change, and asking again would cost one LLM round trip per step
 * (measured: a three-step question took 6 calls, now 4). The prompt tells perception its choice
 * holds for every step. The catalogue a prompt shows is exactly what the sandbox lets the code call.
 * Every event is written to session memory and the trace before the next stage starts.
 *
 * Resolves with status 'answered', 'gave_up' (with `reason` saying what was tried) or 'cancelled'
 * (signal aborted). Throws UsageError for out-of-range limits, and passes on errors that are not
 * the model's mistakes: the LLM client's (LlmRequestError, LlmUnavailableError), a broken prompt
 * template (PromptError), or a memory write failure (MemoryError).
 */
export async function runAgent(options: AgentOptions): Promise<AgentRunResult> {
  const { llm, memory, signal, maxSteps, maxLifelinesPerStep } = options;
  checkBounds(maxSteps, maxLifelinesPerStep);
  const q = new QuestionRun(options);
  const { log } = q;
  await log.start({ query: q.query, strategy: options.strategy, model: llm.model, maxSteps, maxLifelinesPerStep });
  let currentStep = 1;
  try {
    throwIfAborted(signal);
    q.emit({ type: 'perceiving', step: 1, maxSteps });
    // A long session's older turns are folded into a summary first, so the prompt keeps them without outgrowing its budget.
    const budget = options.conversationChars ?? DEFAULT_CONVERSATION_CHARS;
    const summaryOptions = { excludeRunId: log.runId, withholdUntrusted: options.flowPolicy?.strict ?? false, maxChars: budget, ...(options.recentSuccessesLimit !== undefined ? { recentSuccesses: options.recentSuccessesLimit } : {}) };
    const compaction = await untilAborted(compactConversation({ llm, memory, budget, excludeRunId: log.runId, ...(signal ? { signal } : {}) }), signal);
    if (compaction) {
      q.countLlm(compaction);
      await log.llmCall('compaction', 1, compaction);
    }
    const perception = await untilAborted(perceive({ llm, query: q.query, servers: options.servers, memorySummary: memory.summary(summaryOptions), promptsDir: options.promptsDir, signal, events: { stage: 'perception', step: 1, emit: (e) => q.emit(e) } }), signal);
    q.countLlm(perception.llm);
    await log.llmCall('perception', 1, perception.llm);
    await log.perception(1, perception);
    q.emit({ type: 'perceived', step: 1, servers: perception.selected_servers, fallback: perception.fallback, reason: perception.fallback_reason });
    for (const id of perception.selected_servers) q.chosen.add(id);
    // Wait only for the servers perception chose (the others may still be starting).
    const ready = options.awaitTools ? await untilAborted(options.awaitTools(perception.selected_servers, signal), signal) : options.tools;
    const selectedTools: ToolInfo[] = ready.filter((tool) => q.chosen.has(tool.server));
    // Servers that offer no tools (down, or tool-less) must not leave the model with nothing.
    q.stepTools = selectedTools.length > 0 ? selectedTools : options.tools;
    const carried: CarriedResult[] = [];

    for (let step = 1; step <= maxSteps; step++) {
      currentStep = step;
      throwIfAborted(signal);
      const memorySummary = memory.summary(summaryOptions);
      let feedback: RetryFeedback | undefined;
      let stepResult: string | undefined;
      for (let lifelinesLeft = maxLifelinesPerStep; lifelinesLeft >= 0 && stepResult === undefined; lifelinesLeft--) {
        throwIfAborted(signal);
        const end = await attempt(q, { step, lifelinesLeft, perception, memorySummary, carried, feedback });
        if (end.outcome.kind === 'final_answer') {
          await log.answer(step, end.outcome.answer, q.labels());
          return q.finish('answered', end.outcome.answer, null);
        }
        if (end.outcome.kind === 'further_processing') stepResult = end.outcome.result;
        feedback = end.feedback;
      }
      if (stepResult === undefined) return await giveUp(q, giveUpReason({ question: options.query, steps: q.steps, cause: { kind: 'retries', step } }));
      carried.push({ step, result: stepResult });
    }
    return await giveUp(q, giveUpReason({ question: options.query, steps: q.steps, cause: { kind: 'steps', maxSteps, lastResult: carried.at(-1)?.result ?? null } }));
  } catch (err) {
    if (err instanceof RunCancelled || signal?.aborted) {
      const reason = `Cancelled during step ${currentStep} after ${q.steps.length} attempt${q.steps.length === 1 ? '' : 's'}.`;
      await log.end('cancelled', reason, q.labels());
      return q.finish('cancelled', null, reason);
    }
    if (err instanceof QuestionStoppedError) return await giveUp(q, err.message);
    await log.error(err).catch(() => undefined);
    throw err;
  }
}

async function giveUp(q: QuestionRun, reason: string): Promise<AgentRunResult> {
  await q.log.end('gave_up', reason, q.labels());
  return q.finish('gave_up', null, reason);
}

// The agent loop: steps × lifelines of perceive → decide → run solve() → read the outcome (DESIGN §1).
import { randomUUID } from 'node:crypto';
import { CortexError, errorMessage, QuestionStoppedError, UsageError } from '../errors.js';
import type { ToolInfo } from '../mcp/types.js';
import { lastStepDiagnosis } from '../sandbox/diagnosis.js';
import { modelWords } from '../sandbox/reply-turn.js';
import type { SandboxResult } from '../sandbox/types.js';
import { decide, type RetryFeedback } from './decision.js';
import { furtherOnLastStep, type CarriedResult } from '../model-messages.js';
import { cautionFor, FlowGuard } from '../policy/flow-guard.js';
import { quarantineResult } from '../policy/quarantine.js';
import { classifyResult, giveUpReason, type PlanOutcome } from './outcome.js';
import { perceive } from './perception.js';
import { RunLog } from './run-log.js';
import { chooseCatalogue, MEMORY_FALLBACK_TOOL_LIMIT } from './strategy.js';
import type { AgentEvent, AgentOptions, AgentRunResult, AgentStepRecord } from './types.js';

/** Upper bounds on the profile's max_steps and max_lifelines_per_step, so a typo cannot loop for hours. */
export const MAX_STEPS_LIMIT = 20;
export const MAX_LIFELINES_LIMIT = 10;
/** Cap on the model's answer kept in a step record (and so in `--json`), in characters. */
const MAX_STEP_CODE_CHARS = 20_000;

/** The run was aborted through its signal; caught inside runAgent and turned into status 'cancelled'. */
class RunCancelled extends CortexError {
  constructor() {
    super('cancelled', 'the question was cancelled');
  }
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new RunCancelled();
}

/**
 * Settles with `work`, or rejects as soon as `signal` aborts — for collaborators that cannot be
 * interrupted (an LLM client that ignores its signal).
 */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  if (signal.aborted) return Promise.reject(new RunCancelled());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new RunCancelled());
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}

/**
 * On the last step, while a lifeline is left, a FURTHER_PROCESSING_REQUIRED result is fed back
 * (no step follows to use it) instead of ending the run without an answer.
 */
function onLastStep(outcome: PlanOutcome, lastStepWithLifeline: boolean): PlanOutcome {
  if (!lastStepWithLifeline || outcome.kind !== 'further_processing') return outcome;
  return { kind: 'invalid_plan', error: furtherOnLastStep({ result: outcome.result }), problem: 'further_on_last_step', diagnosis: lastStepDiagnosis() };
}

function clipCode(code: string): string {
  return code.length <= MAX_STEP_CODE_CHARS ? code : `${code.slice(0, MAX_STEP_CODE_CHARS)}… [truncated]`;
}

function checkBounds(maxSteps: number, maxLifelinesPerStep: number): void {
  if (!Number.isInteger(maxSteps) || maxSteps < 1 || maxSteps > MAX_STEPS_LIMIT) {
    throw new UsageError(`max_steps must be an integer from 1 to ${MAX_STEPS_LIMIT}, not ${maxSteps}`);
  }
  if (!Number.isInteger(maxLifelinesPerStep) || maxLifelinesPerStep < 0 || maxLifelinesPerStep > MAX_LIFELINES_LIMIT) {
    throw new UsageError(`max_lifelines_per_step must be an integer from 0 to ${MAX_LIFELINES_LIMIT}, not ${maxLifelinesPerStep}`);
  }
}

/**
 * Answers one question. Perception picks the servers once, then for each step (up to maxSteps) up to
 * maxLifelinesPerStep + 1 attempts of decide → sandbox. FINAL_ANSWER (or a value with no prefix)
 * ends the run; FURTHER_PROCESSING_REQUIRED starts the next step with the original task and every
 * earlier step's result; a sandbox error or a refused value (undefined, NaN, "[object Object]"…)
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
  const { query, llm, servers, tools, caller, sandbox, sandboxLimits, strategy, maxSteps, maxLifelinesPerStep } = options;
  const { memoryFallbackEnabled, memory, trace, onEvent, signal, promptsDir } = options;
  checkBounds(maxSteps, maxLifelinesPerStep);
  // One guard per question: what any step read stays on the record for every later call.
  const flowGuard = options.flowPolicy ? new FlowGuard(caller, options.flowPolicy, query) : null;
  const guarded = options.wrapCaller ? options.wrapCaller(flowGuard ?? caller) : (flowGuard ?? caller);
  const started = performance.now();
  const log = new RunLog(memory, trace, randomUUID());
  const steps: AgentStepRecord[] = [];
  const usage = { prompt_tokens: 0, completion_tokens: 0 };
  const timings = { llm_ms: 0, sandbox_ms: 0 };
  const countLlm = (call: { promptTokens: number; completionTokens: number; latencyMs: number }) => {
    usage.prompt_tokens += call.promptTokens;
    usage.completion_tokens += call.completionTokens;
    timings.llm_ms += call.latencyMs;
  };
  const emit = (event: AgentEvent) => onEvent?.(event);
  const finish = (status: AgentRunResult['status'], answer: string | null, reason: string | null): AgentRunResult => ({
    status,
    answer,
    session_id: memory.id,
    steps,
    usage,
    timings: { total_ms: Math.round(performance.now() - started), llm_ms: Math.round(timings.llm_ms), sandbox_ms: Math.round(timings.sandbox_ms) },
    reason,
    caution: flowGuard ? cautionFor(flowGuard.provenance) : null,
  });

  await log.start({ query, strategy, model: llm.model, maxSteps, maxLifelinesPerStep });
  let currentStep = 1;
  try {
    throwIfAborted(signal);
    emit({ type: 'perceiving', step: 1, maxSteps });
    const perception = await untilAborted(perceive({ llm, query, servers, memorySummary: memory.summary({ excludeRunId: log.runId }), promptsDir, signal, events: { stage: 'perception', step: 1, emit } }), signal);
    countLlm(perception.llm);
    await log.llmCall('perception', 1, perception.llm);
    await log.perception(1, perception);
    emit({ type: 'perceived', step: 1, servers: perception.selected_servers, fallback: perception.fallback, reason: perception.fallback_reason });
    const chosen = new Set(perception.selected_servers);
    // Wait only for the servers perception chose (the others may still be starting).
    const ready = options.awaitTools ? await untilAborted(options.awaitTools(perception.selected_servers, signal), signal) : tools;
    const selectedTools: ToolInfo[] = ready.filter((tool) => chosen.has(tool.server));
    // Servers that offer no tools (down, or tool-less) must not leave the model with nothing.
    const stepTools = selectedTools.length > 0 ? selectedTools : tools;
    const carried: CarriedResult[] = [];

    for (let step = 1; step <= maxSteps; step++) {
      currentStep = step;
      throwIfAborted(signal);
      const memorySummary = memory.summary({ excludeRunId: log.runId });
      let feedback: RetryFeedback | undefined;
      let stepResult: string | undefined;
      for (let lifelinesLeft = maxLifelinesPerStep; lifelinesLeft >= 0 && stepResult === undefined; lifelinesLeft--) {
        throwIfAborted(signal);
        const catalogue = chooseCatalogue({
          selected: stepTools,
          allTools: tools,
          isRetry: feedback !== undefined,
          memoryFallbackEnabled,
          recentSuccesses: memory.findRecentSuccesses(MEMORY_FALLBACK_TOOL_LIMIT),
        });
        const toolNames = catalogue.tools.map((t) => t.name);
        emit({ type: 'planning', step, maxSteps, lifelinesLeft, strategy, tools: toolNames, narrowed: catalogue.narrowed });
        const decideStarted = performance.now();
        let decision;
        try {
          decision = await untilAborted(
            decide({
              llm,
              strategy,
              query,
              step,
              maxSteps,
              catalogue: catalogue.tools,
              memorySummary,
              perception,
              earlierResults: carried,
              feedback,
              maxToolCalls: sandboxLimits?.maxToolCalls,
              promptsDir,
              signal,
              events: { stage: 'decision', step, emit },
            }),
            signal,
          );
        } catch (err) {
          if (!(err instanceof RunCancelled) && !signal?.aborted) {
            const latencyMs = performance.now() - decideStarted;
            timings.llm_ms += latencyMs;
            await log.llmCall('decision', step, { model: llm.model, promptTokens: 0, completionTokens: 0, latencyMs, error: errorMessage(err) });
          }
          throw err;
        }
        countLlm(decision.llm);
        await log.llmCall('decision', step, decision.llm);
        await log.plan({ step, lifeline: lifelinesLeft, strategy, tools: toolNames, narrowed: catalogue.narrowed, code: decision.code });

        emit({ type: 'running', step, lifelinesLeft, code: decision.code });
        const sandboxStarted = performance.now();
        // Not untilAborted: the sandbox takes the signal and stops the plan itself, and the question ends only once its plan has.
        const result: SandboxResult = await sandbox.run({
          code: decision.code,
          // What the prompt shows is exactly what the code may call, so an error never names a tool the model was not offered.
          tools: catalogue.tools,
          caller: guarded,
          limits: sandboxLimits,
          onToolCall: ({ phase, record }) => emit({ type: 'tool_call', phase, step, record }),
          ...(options.askUser ? { askUser: options.askUser } : {}),
          ...(options.onUserAnswer ? { onUserAnswer: options.onUserAnswer } : {}),
          ...(signal ? { signal } : {}),
        });
        const sandboxMs = performance.now() - sandboxStarted;
        timings.sandbox_ms += sandboxMs;
        await log.toolCalls(step, lifelinesLeft, result.calls);
        throwIfAborted(signal);
        let classified = classifyResult(result);
        if (options.flowPolicy?.strict && classified.kind === 'further_processing') {
          // Strict mode: the planner sees typed values a tool-less model pulled out, never the result's text.
          const quarantined = await untilAborted(quarantineResult({ llm, task: query, result: classified.result, ...(signal ? { signal } : {}) }), signal);
          countLlm(quarantined.llm);
          classified = { ...classified, result: quarantined.text };
        }
        const outcome = onLastStep(classified, step === maxSteps && lifelinesLeft > 0);
        await log.planResult({ step, lifeline: lifelinesLeft, strategy, outcome, value: result.ok ? result.value : null, ms: sandboxMs });
        const failed = outcome.kind === 'invalid_plan' || outcome.kind === 'sandbox_error' ? outcome : null;
        const error = failed ? failed.error : null;
        steps.push({
          step,
          lifeline: lifelinesLeft,
          strategy,
          servers: perception.selected_servers,
          code: clipCode(result.code ?? ''),
          reply: clipCode(decision.code),
          outcome: outcome.kind,
          error,
          diagnosis: failed ? failed.diagnosis : null,
          tool_calls: result.calls.map((c) => ({ name: c.tool, ...(c.server ? { server: c.server } : {}), args: c.args, ok: c.ok, ms: Math.round(c.ms) })),
        });
        const detail = outcome.kind === 'final_answer' ? outcome.answer : outcome.kind === 'further_processing' ? outcome.result : error!;
        const said = outcome.kind === 'sandbox_error' && outcome.refusedBeforeRunning ? modelWords(decision.code) : undefined;
        emit({ type: 'outcome', step, lifelinesLeft, outcome: outcome.kind, detail, ...(failed ? { diagnosis: failed.diagnosis } : {}), ...(said ? { said } : {}) });

        if (outcome.kind === 'final_answer') {
          await log.answer(step, outcome.answer);
          return finish('answered', outcome.answer, null);
        }
        if (outcome.kind === 'further_processing') {
          stepResult = outcome.result;
        } else {
          // Strict mode withholds the failed run's console output too: it may print what the tools returned.
          feedback = { error: outcome.error, code: decision.code, logs: options.flowPolicy?.strict ? [] : result.logs };
        }
      }
      if (stepResult === undefined) {
        const reason = giveUpReason({ steps, cause: { kind: 'lifelines', step } });
        await log.end('gave_up', reason);
        return finish('gave_up', null, reason);
      }
      carried.push({ step, result: stepResult });
    }
    const reason = giveUpReason({ steps, cause: { kind: 'steps', maxSteps, lastResult: carried.at(-1)?.result ?? null } });
    await log.end('gave_up', reason);
    return finish('gave_up', null, reason);
  } catch (err) {
    if (err instanceof RunCancelled || signal?.aborted) {
      const reason = `Cancelled during step ${currentStep} after ${steps.length} attempt${steps.length === 1 ? '' : 's'}.`;
      await log.end('cancelled', reason);
      return finish('cancelled', null, reason);
    }
    if (err instanceof QuestionStoppedError) {
      await log.end('gave_up', err.message);
      return finish('gave_up', null, err.message);
    }
    await log.error(err).catch(() => undefined);
    throw err;
  }
}

// The agent loop: steps × lifelines of perceive → decide → run solve() → read the outcome (DESIGN §1).
import { randomUUID } from 'node:crypto';
import { CortexError, errorMessage, QuestionStoppedError, UsageError } from '../errors.js';
import type { ToolInfo } from '../mcp/types.js';
import { lastStepDiagnosis } from '../sandbox/diagnosis.js';
import { modelWords } from '../sandbox/reply-turn.js';
import type { SandboxResult } from '../sandbox/types.js';
import { decide, type RetryFeedback } from './decision.js';
import { furtherOnLastStep, type CarriedResult } from '../model-messages.js';
import { cautionFor, FlowGuard, type Provenance } from '../policy/flow-guard.js';
import type { DataLabels } from '../memory/data-labels.js';
import { quarantineResult } from './quarantine.js';
import { classifyResult, giveUpReason, type PlanOutcome } from './outcome.js';
import { perceive } from './perception.js';
import { RunLog } from './run-log.js';
import { NO_TOOL_FITS_FEEDBACK, saysNoToolFits, serversToAdd, unknownCalls } from './replan.js';
import { compactConversation } from './compact.js';
import { DEFAULT_CONVERSATION_CHARS } from '../memory/conversation.js';
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

/** The question as the model reads it: the typed words, then the text given with them (piped in), fenced. */
function withAttached(query: string, attached: string | undefined): string {
  return attached ? `${query}\n\nText given with the question:\n"""\n${attached}\n"""` : query;
}

/** The labels a question starts with: what the session's earlier answers drew on, and text given with the question. */
function givenLabels(earlier: DataLabels, attached: string | undefined): Provenance[] {
  const given: Provenance[] = [];
  // Labelled by the servers the earlier answers drew on, so a later write to one of them is judged as if read there.
  const places = earlier.sources.length > 0 ? earlier.sources : ['earlier answers in this session'];
  if (earlier.private) given.push({ server: 'session', tool: 'earlier answers', untrusted: false, private: true, places });
  for (const server of earlier.untrusted ? (earlier.servers?.length ? earlier.servers : ['session']) : []) {
    given.push({ server, tool: 'earlier answers', untrusted: true, private: earlier.private, places });
  }
  // Piped text may be a forwarded mail or a downloaded page: anyone could have written it, and it is the user's.
  if (attached) given.push({ server: 'you', tool: 'piped text', untrusted: true, private: true, places: ['the text given with the question'] });
  return given;
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
  const { llm, servers, tools, caller, sandbox, sandboxLimits, strategy, maxSteps, maxLifelinesPerStep } = options;
  const { memoryFallbackEnabled, memory, trace, onEvent, signal, promptsDir } = options;
  checkBounds(maxSteps, maxLifelinesPerStep);
  // The model reads the question with the text given with it; only the typed words name places (policy/destinations.ts).
  const query = withAttached(options.query, options.attached);
  const started = performance.now();
  const log = new RunLog(memory, trace, randomUUID());
  // One guard per question: what any step read stays on the record for every later call, and so does what the
  // question was given already labelled (earlier answers of the session, piped text).
  const flowGuard = options.flowPolicy ? new FlowGuard(caller, options.approve, options.flowPolicy, options.query, givenLabels(memory.labels({ excludeRunId: log.runId }), options.attached)) : null;
  // Hooks (PreToolUse, PostToolUse) sit in front of the guard, so arguments a hook rewrites are judged like any others.
  const base = { caller: flowGuard ?? caller, ...(flowGuard ? { approve: flowGuard.approve } : options.approve ? { approve: options.approve } : {}) };
  const { caller: guarded, approve } = options.wrapCaller ? options.wrapCaller(base) : base;
  const withhold = options.flowPolicy?.strict ?? false;
  const labels = (): DataLabels => {
    if (!flowGuard) return { untrusted: false, private: false, sources: [] };
    const seen = flowGuard.seen();
    const labelled = flowGuard.provenance.filter((p) => p.untrusted || p.private);
    return { ...seen, sources: [...new Set(labelled.flatMap((p) => p.places))].slice(0, 10), servers: [...new Set(flowGuard.provenance.filter((p) => p.untrusted).map((p) => p.server))].slice(0, 10) };
  };
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
    sent: flowGuard ? flowGuard.sent.map((s) => `${s.tool} → ${s.to.join(', ')}`) : [],
  });

  await log.start({ query, strategy, model: llm.model, maxSteps, maxLifelinesPerStep });
  let currentStep = 1;
  try {
    throwIfAborted(signal);
    emit({ type: 'perceiving', step: 1, maxSteps });
    // A long session's older turns are folded into a summary first, so the prompt keeps them without outgrowing its budget.
    const budget = options.conversationChars ?? DEFAULT_CONVERSATION_CHARS;
    const summaryOptions = { excludeRunId: log.runId, withholdUntrusted: withhold, maxChars: budget, ...(options.recentSuccessesLimit !== undefined ? { recentSuccesses: options.recentSuccessesLimit } : {}) };
    const compaction = await untilAborted(compactConversation({ llm, memory, budget, excludeRunId: log.runId, ...(signal ? { signal } : {}) }), signal);
    if (compaction) {
      countLlm(compaction);
      await log.llmCall('compaction', 1, compaction);
    }
    const perception = await untilAborted(perceive({ llm, query, servers, memorySummary: memory.summary(summaryOptions), promptsDir, signal, events: { stage: 'perception', step: 1, emit } }), signal);
    countLlm(perception.llm);
    await log.llmCall('perception', 1, perception.llm);
    await log.perception(1, perception);
    emit({ type: 'perceived', step: 1, servers: perception.selected_servers, fallback: perception.fallback, reason: perception.fallback_reason });
    const chosen = new Set(perception.selected_servers);
    // Wait only for the servers perception chose (the others may still be starting).
    const ready = options.awaitTools ? await untilAborted(options.awaitTools(perception.selected_servers, signal), signal) : tools;
    const selectedTools: ToolInfo[] = ready.filter((tool) => chosen.has(tool.server));
    // Servers that offer no tools (down, or tool-less) must not leave the model with nothing.
    let stepTools = selectedTools.length > 0 ? selectedTools : tools;
    const carried: CarriedResult[] = [];
    // Re-planning with servers perception did not choose (agent/replan.ts): they may not have started or listed their
    // tools yet, so their tools are waited for when needed; from then on every attempt offers them.
    const unchosen = () => servers.map((s) => s.id).filter((id) => !chosen.has(id));
    const listUnchosen = async () => (options.awaitTools ? await untilAborted(options.awaitTools(unchosen(), signal), signal) : tools);
    const offer = (step: number, ids: string[], listed: ToolInfo[], reason: string) => {
      for (const id of ids) chosen.add(id);
      stepTools = [...stepTools, ...listed.filter((t) => ids.includes(t.server))];
      emit({ type: 'perceived', step, servers: [...chosen], fallback: false, reason });
    };

    for (let step = 1; step <= maxSteps; step++) {
      currentStep = step;
      throwIfAborted(signal);
      const memorySummary = memory.summary(summaryOptions);
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
          ...(approve ? { approve } : {}),
          limits: sandboxLimits,
          onToolCall: ({ phase, record }) => emit({ type: 'tool_call', phase, step, record }),
          ...(options.askUser ? { askUser: options.askUser } : {}),
          ...(options.onUserAnswer ? { onUserAnswer: options.onUserAnswer } : {}),
          ...(signal ? { signal } : {}),
        });
        const sandboxMs = performance.now() - sandboxStarted;
        const attemptServers = [...chosen];
        // Perception guessed wrong: the plan called a tool only another server has, so the next attempt gets it.
        if (unchosen().length > 0 && unknownCalls(result.calls, catalogue.tools).length > 0 && !signal?.aborted) {
          const listed = await listUnchosen();
          const added = serversToAdd(result.calls, catalogue.tools, listed);
          if (added.length > 0) offer(step, added, listed, `the plan called a tool of ${added.join(', ')}, which was not chosen`);
        }
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
        let outcome = onLastStep(classified, step === maxSteps && lifelinesLeft > 0);
        // The model says none of its tools fits: one retry with every server's tools instead of that answer.
        const words = outcome.kind === 'final_answer' ? outcome.answer : outcome.kind === 'further_processing' ? '' : (modelWords(decision.code) ?? '');
        if (lifelinesLeft > 0 && unchosen().length > 0 && saysNoToolFits(words)) {
          offer(step, unchosen(), await listUnchosen(), 'the model said none of its tools fits');
          outcome = { kind: 'invalid_plan', error: NO_TOOL_FITS_FEEDBACK, problem: 'no_tool_fits', diagnosis: "the model said none of its tools fits, so every server's tools are offered next" };
        }
        await log.planResult({ step, lifeline: lifelinesLeft, strategy, outcome, value: result.ok ? result.value : null, ms: sandboxMs });
        const failed = outcome.kind === 'invalid_plan' || outcome.kind === 'sandbox_error' ? outcome : null;
        const error = failed ? failed.error : null;
        steps.push({
          step,
          lifeline: lifelinesLeft,
          strategy,
          servers: attemptServers,
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
          await log.answer(step, outcome.answer, labels());
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
        const reason = giveUpReason({ question: options.query, steps, cause: { kind: 'retries', step } });
        await log.end('gave_up', reason, labels());
        return finish('gave_up', null, reason);
      }
      carried.push({ step, result: stepResult });
    }
    const reason = giveUpReason({ question: options.query, steps, cause: { kind: 'steps', maxSteps, lastResult: carried.at(-1)?.result ?? null } });
    await log.end('gave_up', reason, labels());
    return finish('gave_up', null, reason);
  } catch (err) {
    if (err instanceof RunCancelled || signal?.aborted) {
      const reason = `Cancelled during step ${currentStep} after ${steps.length} attempt${steps.length === 1 ? '' : 's'}.`;
      await log.end('cancelled', reason, labels());
      return finish('cancelled', null, reason);
    }
    if (err instanceof QuestionStoppedError) {
      await log.end('gave_up', err.message, labels());
      return finish('gave_up', null, err.message);
    }
    await log.error(err).catch(() => undefined);
    throw err;
  }
}

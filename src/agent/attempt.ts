// One attempt at a step: decide (the model writes solve()) → run it in the sandbox → judge the outcome → record it.
import { errorMessage, SandboxUnavailableError } from '../errors.js';
import { furtherOnLastStep, type CarriedResult } from '../model-messages.js';
import type { PreparedCode } from '../reply/read-reply.js';
import { modelWords } from '../reply/reply-turn.js';
import { lastStepDiagnosis } from '../sandbox/diagnosis.js';
import { runnableSkills } from '../sandbox/plan-skills.js';
import type { PlanSkill } from '../sandbox/types.js';
import type { Sandbox, SandboxResult, SandboxRunOptions } from '../sandbox/types.js';
import { RunCancelled, throwIfAborted, untilAborted } from './cancelled.js';
import { decide, type Decision, type RetryFeedback } from './decision.js';
import { classifyResult, type PlanOutcome } from './outcome.js';
import type { Perception } from './perception.js';
import { quarantineResult } from './quarantine.js';
import type { QuestionRun } from './question-run.js';
import { NO_TOOL_FITS_FEEDBACK, saysNoToolFits, serversToAdd, unknownCalls } from './replan.js';
import { chooseCatalogue, MEMORY_FALLBACK_TOOL_LIMIT } from './strategy.js';

/** Cap on the model's answer kept in a step record (and so in `--json`), in characters. */
const MAX_STEP_CODE_CHARS = 20_000;

function clipCode(code: string): string {
  return code.length <= MAX_STEP_CODE_CHARS ? code : `${code.slice(0, MAX_STEP_CODE_CHARS)}… [truncated]`;
}

/** Runs a read reply in the sandbox; a reply that could not be read is the result of a run that never started. */
export function runPlan(sandbox: Sandbox, prepared: PreparedCode, options: Omit<SandboxRunOptions, 'code'>): Promise<SandboxResult> {
  if (!prepared.ok) return Promise.resolve({ ok: false, error: prepared.error, logs: [], calls: [], ms: 0 });
  return sandbox.run({ ...options, code: prepared.code });
}

/**
 * On the last step, while a lifeline is left, a FURTHER_PROCESSING_REQUIRED result is fed back
 * (no step follows to use it) instead of ending the run without an answer.
 */
function onLastStep(outcome: PlanOutcome, lastStepWithLifeline: boolean): PlanOutcome {
  if (!lastStepWithLifeline || outcome.kind !== 'further_processing') return outcome;
  return { kind: 'invalid_plan', error: furtherOnLastStep({ result: outcome.result }), problem: 'further_on_last_step', diagnosis: lastStepDiagnosis() };
}

/** Where an attempt stands in its question. */
export interface AttemptAt {
  step: number;
  lifelinesLeft: number;
  perception: Perception;
  memorySummary: string;
  carried: CarriedResult[];
  /** What the previous attempt of this step got wrong; absent on a step's first attempt. */
  feedback: RetryFeedback | undefined;
}

/** How an attempt ended, and what the next attempt of the step is told when it failed. */
export interface AttemptEnd {
  outcome: PlanOutcome;
  feedback?: RetryFeedback;
}

/** Asks the model for a plan, timing and logging the call whether or not it succeeds. */
async function askForPlan(q: QuestionRun, at: AttemptAt, catalogue: ReturnType<typeof chooseCatalogue>, skills: PlanSkill[]): Promise<Decision> {
  const { llm, strategy, maxSteps, sandboxLimits, promptsDir, signal } = q.options;
  const started = performance.now();
  try {
    const decision = await untilAborted(
      decide({
        llm,
        strategy,
        query: q.query,
        step: at.step,
        maxSteps,
        catalogue: catalogue.tools,
        memorySummary: at.memorySummary,
        perception: at.perception,
        earlierResults: at.carried,
        skills,
        feedback: at.feedback,
        maxToolCalls: sandboxLimits?.maxToolCalls,
        promptsDir,
        signal,
        events: { stage: 'decision', step: at.step, emit: (e) => q.emit(e) },
      }),
      signal,
    );
    q.countLlm(decision.llm);
    await q.log.llmCall('decision', at.step, decision.llm);
    return decision;
  } catch (err) {
    if (!(err instanceof RunCancelled) && !signal?.aborted) {
      const latencyMs = performance.now() - started;
      q.timings.llm_ms += latencyMs;
      await q.log.llmCall('decision', at.step, { model: llm.model, promptTokens: 0, completionTokens: 0, latencyMs, error: errorMessage(err) });
    }
    throw err;
  }
}

/** decide → run → judge → record. Throws RunCancelled once the question's signal aborts. */
export async function attempt(q: QuestionRun, at: AttemptAt): Promise<AttemptEnd> {
  const { options } = q;
  const { strategy, signal } = options;
  const { step, lifelinesLeft } = at;
  const catalogue = chooseCatalogue({
    selected: q.stepTools,
    allTools: options.tools,
    isRetry: at.feedback !== undefined,
    memoryFallbackEnabled: options.memoryFallbackEnabled,
    recentSuccesses: options.memory.findRecentSuccesses(MEMORY_FALLBACK_TOOL_LIMIT),
  });
  const toolNames = catalogue.tools.map((t) => t.name);
  const skills = runnableSkills(options.skills, catalogue.tools);
  q.emit({ type: 'planning', step, maxSteps: options.maxSteps, lifelinesLeft, strategy, tools: toolNames, narrowed: catalogue.narrowed });
  const decision = await askForPlan(q, at, catalogue, skills);
  await q.log.plan({ step, lifeline: lifelinesLeft, strategy, tools: toolNames, narrowed: catalogue.narrowed, code: decision.reply });

  q.emit({ type: 'running', step, lifelinesLeft, code: decision.reply });
  const sandboxStarted = performance.now();
  const { flowGuard } = q;
  // Not untilAborted: the sandbox takes the signal and stops the plan itself, and the question ends only once its plan has.
  const result = await runPlan(options.sandbox, decision.prepared, {
    // What the prompt shows is exactly what the code may call, so an error never names a tool the model was not offered.
    tools: catalogue.tools,
    skills,
    caller: q.caller,
    ...(q.approve ? { approve: q.approve } : {}),
    limits: options.sandboxLimits,
    onToolCall: ({ phase, record }) => q.emit({ type: 'tool_call', phase, step, record }),
    ...(options.askUser ? { askUser: options.askUser } : {}),
    ...(options.toolEmbedder ? { toolEmbedder: options.toolEmbedder } : {}),
    ...(flowGuard ? { onUserAnswer: (answer: string, choices?: readonly string[]) => flowGuard.userAnswered(answer, choices) } : {}),
    ...(signal ? { signal } : {}),
  });
  // A sandbox that cannot start fails every plan alike: the question ends here, saying how to fix it, spending no retry.
  if (!result.ok && result.error.kind === 'unavailable') throw new SandboxUnavailableError(result.error.message);
  const sandboxMs = performance.now() - sandboxStarted;
  const attemptServers = [...q.chosen];
  // Perception guessed wrong: the plan called a tool only another server has, so the next attempt gets it.
  if (q.unchosen().length > 0 && unknownCalls(result.calls, catalogue.tools).length > 0 && !signal?.aborted) {
    const listed = await q.listUnchosen();
    const added = serversToAdd(result.calls, catalogue.tools, listed);
    if (added.length > 0) q.offer(step, added, listed, `the plan called a tool of ${added.join(', ')}, which was not chosen`);
  }
  q.timings.sandbox_ms += sandboxMs;
  await q.log.toolCalls(step, lifelinesLeft, result.calls);
  throwIfAborted(signal);

  const outcome = await judge(q, at, result, decision.reply);
  await q.log.planResult({ step, lifeline: lifelinesLeft, strategy, outcome, value: result.ok ? result.value : null, ms: sandboxMs });
  const failed = outcome.kind === 'invalid_plan' || outcome.kind === 'sandbox_error' ? outcome : null;
  q.steps.push({
    step,
    lifeline: lifelinesLeft,
    strategy,
    servers: attemptServers,
    code: clipCode(result.code ?? ''),
    reply: clipCode(decision.reply),
    outcome: outcome.kind,
    error: failed ? failed.error : null,
    diagnosis: failed ? failed.diagnosis : null,
    tool_calls: result.calls.map((c) => ({ name: c.tool, ...(c.server ? { server: c.server } : {}), args: c.args, ok: c.ok, ms: Math.round(c.ms) })),
  });
  const detail = outcome.kind === 'final_answer' ? outcome.answer : outcome.kind === 'further_processing' ? outcome.result : failed!.error;
  const said = outcome.kind === 'sandbox_error' && outcome.refusedBeforeRunning ? modelWords(decision.reply) : undefined;
  q.emit({ type: 'outcome', step, lifelinesLeft, outcome: outcome.kind, detail, ...(failed ? { diagnosis: failed.diagnosis } : {}), ...(said ? { said } : {}) });
  if (!failed) return { outcome };
  // Strict mode withholds the failed run's console output too: it may print what the tools returned.
  return { outcome, feedback: { error: failed.error, reply: decision.reply, logs: options.flowPolicy?.strict ? [] : result.logs } };
}

/** What the run's result means for the question: answered, handed on, or a mistake that costs a lifeline. */
async function judge(q: QuestionRun, at: AttemptAt, result: SandboxResult, reply: string): Promise<PlanOutcome> {
  const { llm, flowPolicy, maxSteps, signal } = q.options;
  let classified = classifyResult(result);
  if (flowPolicy?.strict && classified.kind === 'further_processing') {
    // Strict mode: the planner sees typed values a tool-less model pulled out, never the result's text.
    const quarantined = await untilAborted(quarantineResult({ llm, task: q.query, result: classified.result, ...(signal ? { signal } : {}) }), signal);
    q.countLlm(quarantined.llm);
    classified = { ...classified, result: quarantined.text };
  }
  const outcome = onLastStep(classified, at.step === maxSteps && at.lifelinesLeft > 0);
  // The model says none of its tools fits: one retry with every server's tools instead of that answer.
  const words = outcome.kind === 'final_answer' ? outcome.answer : outcome.kind === 'further_processing' ? '' : (modelWords(reply) ?? '');
  if (at.lifelinesLeft > 0 && q.unchosen().length > 0 && saysNoToolFits(words)) {
    q.offer(at.step, q.unchosen(), await q.listUnchosen(), 'the model said none of its tools fits');
    return { kind: 'invalid_plan', error: NO_TOOL_FITS_FEEDBACK, problem: 'no_tool_fits', diagnosis: "the model said none of its tools fits, so every server's tools are offered next" };
  }
  return outcome;
}

// Writes one run's events to session memory (DESIGN §3.7 items) and to the session's JSONL trace.
import { errorMessage } from '../errors.js';
import type { SessionMemory } from '../memory/session-memory.js';
import type { Trace } from '../memory/trace.js';
import type { ToolCallRecord } from '../sandbox/types.js';
import type { LlmCallInfo } from './llm-call.js';
import type { PlanOutcome } from './outcome.js';
import type { Perception } from './perception.js';
import type { StrategyName } from './strategy.js';
import type { DataLabels } from '../memory/data-labels.js';

/** Cap on the text of a tool_call memory item (name and arguments), in characters. */
const MAX_CALL_TEXT_CHARS = 500;

function callText(record: ToolCallRecord): string {
  if (record.summarised !== undefined) return `${record.tool}: ${record.error ?? ''}`.slice(0, MAX_CALL_TEXT_CHARS);
  let args: string;
  try {
    args = JSON.stringify(record.args) ?? '';
  } catch {
    args = '[unserialisable]';
  }
  const text = `${record.tool}(${args})`;
  return text.length <= MAX_CALL_TEXT_CHARS ? text : `${text.slice(0, MAX_CALL_TEXT_CHARS - 1)}…`;
}

/** The memory and trace of one run; every method resolves once written. */
export class RunLog {
  constructor(
    private readonly memory: SessionMemory,
    private readonly trace: Trace,
    readonly runId: string,
  ) {}

  async start(info: { query: string; strategy: StrategyName; model: string; maxSteps: number; maxLifelinesPerStep: number }): Promise<void> {
    await this.memory.add({
      type: 'run_metadata',
      text: info.query,
      tags: ['query'],
      metadata: { run_id: this.runId, event: 'start', strategy: info.strategy, model: info.model, max_steps: info.maxSteps },
    });
    await this.trace.record({
      type: 'run_start',
      run_id: this.runId,
      query: info.query,
      strategy: info.strategy,
      model: info.model,
      max_steps: info.maxSteps,
      max_lifelines_per_step: info.maxLifelinesPerStep,
    });
  }

  llmCall(stage: 'perception' | 'decision' | 'compaction', step: number, call: LlmCallInfo): Promise<void> {
    return this.trace.record({
      type: 'llm_call',
      run_id: this.runId,
      stage,
      step,
      model: call.model,
      prompt_tokens: call.promptTokens,
      completion_tokens: call.completionTokens,
      latency_ms: Math.round(call.latencyMs),
      ok: call.error === undefined,
      ...(call.error !== undefined ? { error: call.error } : {}),
    });
  }

  perception(step: number, perception: Perception): Promise<void> {
    return this.trace.record({
      type: 'perception',
      run_id: this.runId,
      step,
      selected_servers: perception.selected_servers,
      fallback: perception.fallback,
      intent: perception.intent,
      ...(perception.fallback_reason ? { fallback_reason: perception.fallback_reason } : {}),
    });
  }

  plan(info: { step: number; lifeline: number; strategy: StrategyName; tools: string[]; narrowed: boolean; code: string }): Promise<void> {
    return this.trace.record({ type: 'plan', run_id: this.runId, ...info });
  }

  /**
   * One memory item and one trace line per call, in the order the sandbox reported them. The sandbox bounds the
   * records (a flood of refused calls arrives as one summary record), so this stays a few dozen writes.
   */
  async toolCalls(step: number, lifeline: number, calls: ToolCallRecord[]): Promise<void> {
    for (const record of calls) {
      await this.memory.add({
        type: 'tool_call',
        text: callText(record),
        tool_name: record.tool,
        tool_args: record.args,
        success: record.ok,
        tags: ['tool_call'],
        metadata: { run_id: this.runId, step, lifeline, ms: Math.round(record.ms), ...(record.error ? { error: record.error } : {}) },
      });
      await this.trace.record({
        type: 'tool_call',
        run_id: this.runId,
        step,
        lifeline,
        name: record.tool,
        args: record.args,
        ms: Math.round(record.ms),
        ok: record.ok,
        ...(record.error ? { error: record.error } : {}),
      });
    }
  }

  /** The plan's outcome: a tool_output memory item (solve()'s value or error) and the matching trace line. */
  async planResult(info: { step: number; lifeline: number; strategy: StrategyName; outcome: PlanOutcome; value: string | null; ms: number }): Promise<void> {
    const { step, lifeline, outcome } = info;
    const ok = outcome.kind === 'final_answer' || outcome.kind === 'further_processing';
    await this.memory.add({
      type: 'tool_output',
      text: ok ? (info.value ?? '') : outcome.kind === 'invalid_plan' || outcome.kind === 'sandbox_error' ? outcome.error : '',
      tool_name: 'solve',
      ...(info.value !== null ? { tool_result: info.value } : {}),
      success: ok,
      tags: ['plan_result', outcome.kind],
      metadata: { run_id: this.runId, step, lifeline, strategy: info.strategy, outcome: outcome.kind, ms: Math.round(info.ms) },
    });
    const ms = Math.round(info.ms);
    if (outcome.kind === 'sandbox_error') {
      const message = outcome.error.slice(outcome.errorKind.length + 2);
      await this.trace.record({ type: 'sandbox_error', run_id: this.runId, step, lifeline, kind: outcome.errorKind, message, ms });
    } else if (outcome.kind === 'invalid_plan') {
      await this.trace.record({ type: 'invalid_plan', run_id: this.runId, step, lifeline, value: info.value ?? '', ms });
    } else if (outcome.kind === 'further_processing') {
      await this.trace.record({ type: 'step_result', run_id: this.runId, step, lifeline, result: outcome.result, ms });
    }
  }

  /** The answer, with the labels of what it drew on (they reach later questions of the session: DataLabels). */
  async answer(step: number, answer: string, labels: DataLabels): Promise<void> {
    await this.memory.add({
      type: 'final_answer',
      text: answer,
      final_answer: answer,
      success: true,
      tags: ['final_answer'],
      metadata: { run_id: this.runId, step, labels },
    });
    await this.trace.record({ type: 'answer', run_id: this.runId, step, answer });
  }

  /** The end of a run that did not answer: a run_metadata item and a gave_up / cancelled trace line. */
  async end(status: 'gave_up' | 'cancelled', reason: string, labels: DataLabels): Promise<void> {
    await this.memory.add({ type: 'run_metadata', text: reason, tags: [status], metadata: { run_id: this.runId, event: 'end', status, labels } });
    await this.trace.record({ type: status, run_id: this.runId, reason });
  }

  /**
   * A run stopped by our error or the environment's (LLM unreachable or refusing, broken prompt file): an end item
   * with status 'failed' and the error's message, so the session's list says why, and an error trace line.
   */
  async error(err: unknown): Promise<void> {
    const code = typeof (err as { code?: unknown })?.code === 'string' ? (err as { code: string }).code : 'internal';
    const message = errorMessage(err);
    await this.memory.add({ type: 'run_metadata', text: message, tags: ['failed'], metadata: { run_id: this.runId, event: 'end', status: 'failed', code } });
    await this.trace.record({ type: 'error', run_id: this.runId, code, message });
  }
}

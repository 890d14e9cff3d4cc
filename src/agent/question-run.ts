// What one question keeps across its attempts: the guarded tools, the servers offered, the records, usage and times.
import { randomUUID } from 'node:crypto';
import type { DataLabels } from '../memory/data-labels.js';
import type { ApproveTool, ToolCaller, ToolInfo } from '../mcp/types.js';
import { cautionFor, FlowGuard, type Provenance } from '../policy/flow-guard.js';
import { untilAborted } from './cancelled.js';
import { RunLog } from './run-log.js';
import type { AgentEvent, AgentOptions, AgentRunResult, AgentStepRecord } from './types.js';

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

export class QuestionRun {
  /** The question with the text given with it; only the typed words name places (policy/destinations.ts). */
  readonly query: string;
  readonly log: RunLog;
  /** One guard per question: what any step read stays on the record for every later call. */
  readonly flowGuard: FlowGuard | null;
  /** The caller and approver plans use: hooks (PreToolUse, PostToolUse) in front of the guard. */
  readonly caller: ToolCaller;
  readonly approve: ApproveTool | undefined;
  readonly steps: AgentStepRecord[] = [];
  readonly usage = { prompt_tokens: 0, completion_tokens: 0 };
  readonly timings = { llm_ms: 0, sandbox_ms: 0 };
  /** Servers whose tools plans are offered: perception's choice, and those re-planning added (agent/replan.ts). */
  readonly chosen = new Set<string>();
  /** The tools of the chosen servers. */
  stepTools: ToolInfo[] = [];
  private readonly started = performance.now();

  constructor(readonly options: AgentOptions) {
    this.query = withAttached(options.query, options.attached);
    this.log = new RunLog(options.memory, options.trace, randomUUID());
    const { caller, flowPolicy, memory, attached } = options;
    this.flowGuard = flowPolicy ? new FlowGuard(caller, options.approve, flowPolicy, options.query, givenLabels(memory.labels({ excludeRunId: this.log.runId }), attached)) : null;
    // Hooks sit in front of the guard, so arguments a hook rewrites are judged like any others.
    const base = { caller: this.flowGuard ?? caller, ...(this.flowGuard ? { approve: this.flowGuard.approve } : options.approve ? { approve: options.approve } : {}) };
    const guarded = options.wrapCaller ? options.wrapCaller(base) : base;
    this.caller = guarded.caller;
    this.approve = guarded.approve;
  }

  emit(event: AgentEvent): void {
    this.options.onEvent?.(event);
  }

  countLlm(call: { promptTokens: number; completionTokens: number; latencyMs: number }): void {
    this.usage.prompt_tokens += call.promptTokens;
    this.usage.completion_tokens += call.completionTokens;
    this.timings.llm_ms += call.latencyMs;
  }

  /** What the question read so far, for the answer's record (later questions of the session start with it). */
  labels(): DataLabels {
    if (!this.flowGuard) return { untrusted: false, private: false, sources: [] };
    const { provenance } = this.flowGuard;
    const labelled = provenance.filter((p) => p.untrusted || p.private);
    return { ...this.flowGuard.seen(), sources: [...new Set(labelled.flatMap((p) => p.places))].slice(0, 10), servers: [...new Set(provenance.filter((p) => p.untrusted).map((p) => p.server))].slice(0, 10) };
  }

  finish(status: AgentRunResult['status'], answer: string | null, reason: string | null): AgentRunResult {
    const { flowGuard } = this;
    return {
      status,
      answer,
      session_id: this.options.memory.id,
      steps: this.steps,
      usage: this.usage,
      timings: { total_ms: Math.round(performance.now() - this.started), llm_ms: Math.round(this.timings.llm_ms), sandbox_ms: Math.round(this.timings.sandbox_ms) },
      reason,
      caution: flowGuard ? cautionFor(flowGuard.provenance) : null,
      sent: flowGuard ? flowGuard.sent.map((s) => `${s.tool} → ${s.to.join(', ')}`) : [],
    };
  }

  /** Servers perception did not choose and nothing added since. */
  unchosen(): string[] {
    return this.options.servers.map((s) => s.id).filter((id) => !this.chosen.has(id));
  }

  /** The unchosen servers' tools: they may not have started or listed their tools yet, so they are waited for. */
  async listUnchosen(): Promise<ToolInfo[]> {
    const { awaitTools, signal, tools } = this.options;
    return awaitTools ? untilAborted(awaitTools(this.unchosen(), signal), signal) : tools;
  }

  /** Offers the tools of servers `ids` to every later attempt, saying why. */
  offer(step: number, ids: string[], listed: ToolInfo[], reason: string): void {
    for (const id of ids) this.chosen.add(id);
    this.stepTools = [...this.stepTools, ...listed.filter((t) => ids.includes(t.server))];
    this.emit({ type: 'perceived', step, servers: [...this.chosen], fallback: false, reason });
  }
}

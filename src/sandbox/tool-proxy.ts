// Host side of the sandbox's MCP proxy: counts calls, checks arguments, calls the tool, records each call.
import { errorMessage } from '../errors.js';
import type { Embedder } from '../llm/types.js';
import { RESOURCE_READER, type ApproveTool, type ResourceReadResult, type ToolCaller, type ToolInfo, type ToolProgress, type ToolResult } from '../mcp/types.js';
import { callee, decodeArgs, MAX_NAMES_LISTED, MAX_TOOL_NAME_CHARS, unknownToolMessage } from './call-args.js';
import { checkArgs, isPlainObject } from './check-args.js';
import { schemaToType } from './schema-type.js';
import { lookUpTools } from './tool-search.js';
import { MAX_REFUSED_CALLS_PER_RUN, MAX_TOOL_ARGS_CHARS, MAX_TOOL_RESULT_CHARS, TOOL_CALL_TIMEOUT_MS, WORKER_OVERRUN_GRACE_MS } from './limits.js';
import type { CallMode } from './protocol.js';
import { parseToolResult, resourceValue, toolErrorText } from './tool-result.js';
import { PausableDeadline } from '../time/pausable-deadline.js';
import { untilAborted } from '../time/until-aborted.js';
import { NO_ANSWER_ADVICE, NO_ANSWER_MESSAGE, NOBODY_TO_ASK_MESSAGE, readQuestion } from './ask-person.js';
import type { AskPerson, SandboxRunOptions, ToolCallRecord } from './types.js';

export type { CallMode };

/** The answer sent back into the isolate: JSON of {ok: true, value} or {ok: false, kind, message}. */
export type ToolReply = string;

/**
 * Refused calls recorded (and shown) one by one; the rest are counted into one summary record, so a plan firing
 * thousands of calls at once costs the display, memory and trace a bounded number of records. One past the
 * tolerated refusals, so the call that ended the run is still shown.
 */
export const MAX_REFUSALS_RECORDED = MAX_REFUSED_CALLS_PER_RUN + 1;

/** What one run's proxy needs: the tools, the caller, the cap and the run's deadline. */
export interface ToolProxyOptions {
  tools: ToolInfo[];
  caller: ToolCaller;
  /** Asked before each call and resource read (src/policy); absent: every call may run. */
  approve?: ApproveTool;
  maxToolCalls: number;
  /** One call's own time limit; default TOOL_CALL_TIMEOUT_MS. */
  toolTimeoutMs?: number;
  /** Running time left before the run ends (the run's PausableDeadline: pauses never count); calls never outlive it. */
  remainingMs: () => number;
  /** Aborted when the run ends; pending calls are abandoned. */
  signal: AbortSignal;
  onToolCall?: SandboxRunOptions['onToolCall'];
  /**
   * Stops the run's clock while the user is asked to approve a call (the gate says when: ApproveOptions
   * onWaitingForUser), or a server waits for their answer (a person may take longer than the plan's time limit);
   * returns the function that restarts it. See runOnWorker().
   */
  pauseDeadline?: () => () => void;
  /** How `ask_user()` reaches the person; absent: nobody to ask. */
  askUser?: AskPerson;
  /** Told each answer the person gave through `ask_user()`. */
  onUserAnswer?: SandboxRunOptions['onUserAnswer'];
  /** Fused into `mcp.search_tools` when it is an embedding model (tool-search.ts). */
  toolEmbedder?: Embedder;
}

/** One per run. `handle()` never throws: every outcome becomes a reply for the isolate. */
export class ToolProxy {
  readonly calls: ToolCallRecord[] = [];
  /** Calls that went to a server. */
  private dispatched = 0;
  private refused = 0;
  /** True once a call was refused because the cap was reached. */
  capHit = false;
  /** Message of the latest refused call. */
  lastRefusal: string | undefined;
  private readonly byName: Map<string, ToolInfo>;
  /** `<server>.<tool>` for every tool, so a qualified name works even where the plain one is unique. */
  private readonly byQualifiedName: Map<string, ToolInfo>;
  /** Calls in flight, by a per-run id, for the timeout message. */
  private readonly pending = new Map<number, string>();
  private nextCallId = 0;
  /** Refused calls past MAX_REFUSALS_RECORDED: counted by kind and tool, recorded once by finishRecords(). */
  private readonly unrecorded = { total: 0, capped: 0, tools: new Set<string>() };
  private recordsFinished = false;
  private questionsAsked = 0;

  constructor(private readonly options: ToolProxyOptions) {
    this.byName = new Map(options.tools.map((t) => [t.name, t]));
    this.byQualifiedName = new Map(options.tools.map((t) => [`${t.server}.${t.remoteName}`, t]));
  }

  /** Why the run should be ended now (too many refused calls), or null. */
  stopReason(): 'call_cap' | 'tool_error' | null {
    if (this.refused <= MAX_REFUSED_CALLS_PER_RUN) return null;
    return this.capHit ? 'call_cap' : 'tool_error';
  }

  /** Names of tools whose calls have not answered yet. */
  pendingTools(): string[] {
    return [...new Set(this.pending.values())];
  }

  /**
   * Handles one call from the isolate: `argsJson` is the JSON of the argument list the code passed; in
   * `resource` mode `name` is the URI given to `mcp.read_resource`.
   */
  async handle(name: string, argsJson: string, mode: CallMode): Promise<ToolReply> {
    const started = performance.now();
    if (mode === 'resource') return this.readResource(name, started);
    if (mode === 'search' || mode === 'describe') return lookUpTools(this.options.tools, name, argsJson, mode, this.options.toolEmbedder);
    if (mode === 'ask') return this.askPerson(name, argsJson);
    const tool = this.byName.get(name) ?? this.byQualifiedName.get(name);
    if (!tool) {
      const shown = name.length > MAX_TOOL_NAME_CHARS ? `${name.slice(0, MAX_TOOL_NAME_CHARS)}…` : name;
      return this.refuse(shown, null, started, 'tool_error', unknownToolMessage(this.options.tools, this.byName, name, shown));
    }
    const args = decodeArgs(tool, argsJson, mode);
    // What people see is what the code wrote, not the arguments as normalised for the server.
    const passed = argsJson.length <= MAX_TOOL_ARGS_CHARS ? argsJson.slice(1, -1) : undefined;
    if (typeof args === 'string') return this.refuse(name, null, started, 'tool_error', args, undefined, passed);
    const problems = checkArgs(tool.inputSchema, args);
    if (problems.length > 0) {
      return this.refuse(name, args, started, 'tool_error',
        `${callee(name)} was called with invalid arguments: ${problems.join('; ')}. Call it as ${callee(name)}(${schemaToType(tool.inputSchema)}).`, undefined, passed);
    }
    if (this.dispatched >= this.options.maxToolCalls) {
      this.capHit = true;
      return this.refuse(name, args, started, 'call_cap',
        `Tool-call limit reached: a plan may make at most ${this.options.maxToolCalls} tool calls, and this was call ${this.dispatched + 1}. Do not retry; return what you have or combine work into fewer calls.`, undefined, passed);
    }
    // The slot is held while the user is asked, so calls running beside this one can't pass the cap.
    this.dispatched++;
    if (!this.options.approve) return this.dispatch(tool, args, mode, started, passed);
    const refusal = await this.approve(tool, args);
    // The call's time starts once it is approved: the person's time to answer is not the tool's.
    if (refusal === null) return this.dispatch(tool, args, mode, performance.now(), passed);
    this.dispatched--;
    return this.refuse(name, args, performance.now(), 'tool_error', refusal, tool.server, passed);
  }

  /** `ask_user(question, {choices})`: asks the person with the run's clock stopped; never counts against the call cap. */
  private async askPerson(question: string, argsJson: string): Promise<ToolReply> {
    const { askUser, onUserAnswer, signal } = this.options;
    const asked = readQuestion(question, argsJson, this.questionsAsked++);
    if (typeof asked === 'string') return errorReply('tool_error', asked);
    if (!askUser) return errorReply('tool_error', NOBODY_TO_ASK_MESSAGE);
    const resume = this.options.pauseDeadline?.();
    try {
      const answer = await askUser(asked.question, asked.choices ? { choices: asked.choices } : {}, signal);
      if (answer === null) return errorReply('tool_error', NO_ANSWER_MESSAGE);
      onUserAnswer?.(answer, asked.choices);
      return JSON.stringify({ ok: true, value: answer });
    } catch (err) {
      return errorReply('tool_error', `ask_user could not ask the person: ${errorMessage(err)}. ${NO_ANSWER_ADVICE}`);
    } finally {
      resume?.();
    }
  }

  /**
   * Null when the call may run, else the message for the model. Never throws. The run's clock stops only while the
   * gate waits for a person (onWaitingForUser): an approval that answers at once sends the worker nothing.
   */
  private async approve(tool: ToolInfo, args: Record<string, unknown>): Promise<string | null> {
    const { approve: gate, pauseDeadline, signal } = this.options;
    if (!gate) return null;
    try {
      const decision = await gate(tool, args, { signal, ...(pauseDeadline ? { onWaitingForUser: pauseDeadline } : {}) });
      return decision.approved ? null : `${callee(tool.name)} was not run: ${decision.reason}`;
    } catch (err) {
      return `${callee(tool.name)} was not run: its approval could not be asked (${errorMessage(err)}).`;
    }
  }

  /** `mcp.read_resource(uri)`: one call against the cap, routed by the caller to the server that owns the URI. */
  private async readResource(uri: string, started: number): Promise<ToolReply> {
    const tool = 'mcp.read_resource';
    const args = { uri };
    const reader = this.options.caller.readResource?.bind(this.options.caller);
    if (!reader) return this.refuse(tool, args, started, 'tool_error', 'No server in this run offers resources, so mcp.read_resource cannot be used.');
    if (uri.length > MAX_TOOL_ARGS_CHARS) return this.refuse(tool, null, started, 'tool_error', `The URI is ${uri.length} characters; the limit is ${MAX_TOOL_ARGS_CHARS}.`);
    if (this.dispatched >= this.options.maxToolCalls) {
      this.capHit = true;
      return this.refuse(tool, args, started, 'call_cap',
        `Tool-call limit reached: a plan may make at most ${this.options.maxToolCalls} tool calls (mcp.read_resource counts as one), and this was call ${this.dispatched + 1}. Do not retry; return what you have.`);
    }
    this.dispatched++;
    // A read names a place as a fetch does: the policy judges it like any call.
    const refusal = await this.approve(RESOURCE_READER, args);
    if (refusal !== null) {
      this.dispatched--;
      return this.refuse(tool, args, performance.now(), 'tool_error', refusal);
    }
    return this.run(tool, args, null, performance.now(), async (options) => {
      const read: ResourceReadResult = await reader(uri, options);
      return { server: read.server, value: resourceValue(Array.isArray(read.contents) ? read.contents : []) };
    });
  }

  private dispatch(tool: ToolInfo, args: Record<string, unknown>, mode: CallMode, started: number, passed: string | undefined): Promise<ToolReply> {
    return this.run(tool.name, args, tool.server, started, async (options, record) => {
      const result = await this.options.caller.callTool(tool.server, tool.remoteName, args, options);
      return { server: tool.server, reply: this.replyFor(tool.name, result, mode, record) };
    }, passed);
  }

  /**
   * Runs one dispatched call under its own timeout and the run's deadline, records it and turns any
   * failure into a tool error. `call` gives either a ready reply or a value to send as `{ok: true, value}`.
   */
  private async run(
    name: string,
    args: Record<string, unknown>,
    server: string | null,
    started: number,
    call: (options: { signal: AbortSignal; timeoutMs: number; onProgress: (p: ToolProgress) => void; onWaitingForUser: () => () => void }, record: ToolCallRecord) => Promise<{ server: string; reply?: ToolReply; value?: unknown }>,
    passed?: string,
  ): Promise<ToolReply> {
    const record: ToolCallRecord = { tool: name, ...(server ? { server } : {}), args, ...(passed !== undefined ? { passed } : {}), ok: false, ms: 0 };
    /** Time the server spent waiting for the person (elicitation): not the tool's time. */
    let waitedMs = 0;
    this.emit('start', record);
    const remainingMs = Math.max(1, Math.floor(this.options.remainingMs()));
    // The call's own timeout applies only when it ends before the run does; otherwise the run's deadline
    // decides, and the caller gets a little more so its own timer never beats the deadline into a tool error.
    const callTimeoutMs = this.options.toolTimeoutMs ?? TOOL_CALL_TIMEOUT_MS;
    const ownTimeout = callTimeoutMs < remainingMs;
    const timeoutMs = ownTimeout ? callTimeoutMs : remainingMs + WORKER_OVERRUN_GRACE_MS;
    const callEnded = ownTimeout ? new PausableDeadline({ ms: timeoutMs, parent: this.options.signal }) : null;
    const signal = callEnded?.signal ?? this.options.signal;
    const callId = this.nextCallId++;
    this.pending.set(callId, name);
    let reply: ToolReply;
    try {
      // Progress restarts the call's own wait (the server is still working) and is shown as a fresh 'start'.
      const onProgress = (progress: ToolProgress) => {
        callEnded?.extend();
        this.emit('start', Object.assign(record, { progress }));
      };
      // While the server waits for the person (elicitation) neither this call's clock nor the run's runs.
      const onWaitingForUser = () => {
        const resumeCall = callEnded?.pause();
        const resumeRun = this.options.pauseDeadline?.();
        const since = performance.now();
        return () => {
          waitedMs += performance.now() - since;
          resumeRun?.();
          resumeCall?.();
        };
      };
      const answer = await untilAborted(call({ signal, timeoutMs, onProgress, onWaitingForUser }, record), signal);
      record.server = answer.server;
      reply = answer.reply ?? this.valueReply(name, answer.value, record);
    } catch (err) {
      const reason = this.options.signal.aborted
        ? 'the run ended before it answered'
        : signal.aborted
          ? `it did not answer within ${timeoutMs} ms`
          : errorMessage(err);
      record.error = reason;
      reply = errorReply('tool_error', `Tool ${name} failed: ${reason}`);
    } finally {
      this.pending.delete(callId);
      callEnded?.dispose();
    }
    record.ms = Math.max(0, Math.round(performance.now() - started - waitedMs));
    this.calls.push(record);
    this.emit('end', record);
    return reply;
  }

  private valueReply(name: string, value: unknown, record: ToolCallRecord): ToolReply {
    const json = JSON.stringify({ ok: true, value });
    if (json.length > MAX_TOOL_RESULT_CHARS) {
      record.error = `its result is ${json.length} characters; the limit is ${MAX_TOOL_RESULT_CHARS}`;
      return errorReply('tool_error', `${name} returned too much: ${record.error}.`);
    }
    record.ok = true;
    return json;
  }

  private replyFor(name: string, result: ToolResult, mode: CallMode, record: ToolCallRecord): ToolReply {
    if (!isPlainObject(result)) {
      record.error = 'the server sent a malformed result';
      return errorReply('tool_error', `Tool ${name} failed: the server sent a malformed result.`);
    }
    if (result.isError === true) record.error = toolErrorText(result);
    if (result.isError === true && mode === 'parsed') {
      return errorReply('tool_error', `Tool ${name} failed: ${record.error}`);
    }
    let json: string | undefined;
    try {
      json = JSON.stringify({ ok: true, value: mode === 'raw' ? result : parseToolResult(result) });
    } catch (err) {
      record.error = `its result is not JSON (${errorMessage(err)})`;
      return errorReply('tool_error', `Tool ${name} failed: ${record.error}.`);
    }
    if (json.length > MAX_TOOL_RESULT_CHARS) {
      record.error = `its result is ${json.length} characters; the limit is ${MAX_TOOL_RESULT_CHARS}`;
      return errorReply('tool_error', `Tool ${name} returned too much: ${record.error}. Ask for less (narrower input).`);
    }
    record.ok = result.isError !== true;
    return json;
  }

  private refuse(tool: string, args: unknown, started: number, kind: 'tool_error' | 'call_cap', message: string, server?: string, passed?: string): ToolReply {
    this.refused++;
    this.lastRefusal = message;
    if (this.refused > MAX_REFUSALS_RECORDED || this.recordsFinished) {
      this.unrecorded.total++;
      if (kind === 'call_cap') this.unrecorded.capped++;
      if (this.unrecorded.tools.size <= MAX_NAMES_LISTED) this.unrecorded.tools.add(tool);
      return errorReply(kind, message);
    }
    const record: ToolCallRecord = { tool, ...(server ? { server } : {}), args, ...(passed !== undefined ? { passed } : {}), ok: false, ms: Math.round(performance.now() - started), error: message };
    this.calls.push(record);
    this.emit('start', record);
    this.emit('end', record);
    return errorReply(kind, message);
  }

  /**
   * Adds the one record standing for every refused call past MAX_REFUSALS_RECORDED (e.g. "4,969 further calls
   * rejected by the call cap"), and emits it; call once when the run ends. Idempotent.
   */
  finishRecords(): void {
    if (this.recordsFinished) return;
    this.recordsFinished = true;
    const { total, capped, tools } = this.unrecorded;
    if (total === 0) return;
    const count = (n: number) => `${n.toLocaleString('en-US')} further call${n === 1 ? '' : 's'}`;
    const why =
      capped === total
        ? 'rejected by the call cap'
        : capped === 0
          ? 'refused (unknown tool or invalid arguments)'
          : `refused (${capped.toLocaleString('en-US')} by the call cap, the rest for an unknown tool or invalid arguments)`;
    const names = [...tools];
    const record: ToolCallRecord = {
      tool: names.length === 1 ? names[0]! : names.length <= MAX_NAMES_LISTED ? names.join(', ') : `${names.slice(0, MAX_NAMES_LISTED).join(', ')}, …`,
      args: null,
      ok: false,
      ms: 0,
      error: `${count(total)} ${why}`,
      summarised: total,
    };
    this.calls.push(record);
    this.emit('start', record);
    this.emit('end', record);
  }

  private emit(phase: 'start' | 'end', record: ToolCallRecord): void {
    try {
      this.options.onToolCall?.({ phase, record: { ...record } });
    } catch {
      // A failing display callback must not change the run's outcome.
    }
  }
}

function errorReply(kind: 'tool_error' | 'call_cap', message: string): ToolReply {
  return JSON.stringify({ ok: false, kind, message });
}

// The sandbox's contract with the agent loop: run LLM-written code, never throw.
import type { ApproveTool, ToolCaller, ToolInfo } from '../mcp/types.js';
import type { Embedder } from '../llm/types.js';

/** Limits for one run; profiles.yaml `sandbox:` supplies them. */
/** One saved plan as a plan sees it: its call name, the question it answers, its arguments' defaults, its code. */
export interface PlanSkill {
  name: string;
  /** The question it answers, with `{argument}` where a value goes. */
  question: string;
  defaults: Readonly<Record<string, string | number>>;
  /** The servers its calls go to: it is offered only when the plan may call them all. */
  servers: readonly string[];
  /** JavaScript defining `async function solve()`, reading its arguments from `args`. */
  code: string;
}

export interface SandboxLimits {
  /** Tool calls allowed per plan; call number max+1 rejects. Defaults and ranges: config/limits.ts. */
  maxToolCalls: number;
  /** Wall-clock deadline for the whole run, awaited work included. Default 30,000 ms. */
  timeoutMs: number;
  /** Isolate heap limit. Default 64 MB. */
  memoryMb: number;
  /** Cap on the normalised result and on captured logs, in characters. */
  maxOutputChars: number;
  /** One tool call's own time limit (profiles.yaml `tool_timeout_ms`); the run deadline may cut it shorter. Default 20,000 ms. */
  toolTimeoutMs?: number;
}

export type SandboxErrorKind =
  | 'syntax'
  | 'python'
  | 'no_solve'
  | 'runtime'
  | 'timeout'
  | 'memory'
  | 'call_cap'
  | 'tool_error'
  | 'output_limit'
  | 'crash'
  /** No code can run here: the worker cannot load isolated-vm (the message says how to fix it). Not the plan's fault. */
  | 'unavailable'
  /** The question was cancelled (its signal aborted); the plan was stopped. */
  | 'cancelled';

/** Why a reply was refused before anything ran. */
export type ReplyProblem =
  | 'too_long'
  | 'empty'
  | 'unreadable'
  | 'still_reasoning'
  | 'no_code'
  | 'python'
  | 'other_language'
  | 'diff'
  | 'imports'
  | 'truncated'
  | 'unpaired_fence'
  | 'syntax'
  | 'no_solve'
  | 'unknown_json'
  | 'several_tool_calls';

export interface SandboxError {
  kind: SandboxErrorKind;
  /** Written for the model: what went wrong and what to do instead. */
  message: string;
  /** Set when the reply was refused before running: which problem it has. */
  problem?: ReplyProblem;
  /** For a person, in plain words and one line: what went wrong (never an instruction to the model). */
  diagnosis?: string;
}

export interface ToolCallRecord {
  /** The name the code called (as offered in the catalogue), or `mcp.read_resource`. */
  tool: string;
  /** The server the call went to; absent when it was refused before reaching one (unknown tool). */
  server?: string;
  /** The arguments sent (positional values named, an `{input: …}` wrapper removed). */
  args: unknown;
  /** The argument list exactly as the code wrote it, as JSON without the brackets (`2,3` for `tools.add(2, 3)`), for people to read. */
  passed?: string;
  ok: boolean;
  /** How long the call ran, less the time a person took to answer its approval or a question it asked. */
  ms: number;
  error?: string;
  /** Set on the one record that stands for this many refused calls past the per-run record bound (tool names joined). */
  summarised?: number;
  /** The latest progress the server reported; a 'start' event is sent again each time it changes. */
  progress?: { progress: number; total?: number; message?: string };
}

/** `code`: the JavaScript that ran (readReply()'s output); absent when nothing ran. */
export type SandboxResult =
  | { ok: true; value: string; logs: string[]; calls: ToolCallRecord[]; ms: number; code?: string }
  | { ok: false; error: SandboxError; logs: string[]; calls: ToolCallRecord[]; ms: number; code?: string };

export interface SandboxRunOptions {
  /** JavaScript defining `async function solve()`, as readReply() (src/reply/) prepares it from the model's reply. */
  code: string;
  /** Tools the code may call (the catalogue shown to the model). */
  tools: ToolInfo[];
  /** Carries the calls to the MCP servers. */
  caller: ToolCaller;
  /** Asked before each tool call and resource read, outside the call's own timeout (src/policy); absent: every call may run. */
  approve?: ApproveTool;
  limits?: Partial<SandboxLimits>;
  /** Called as each tool call starts and ends, for the live display. */
  onToolCall?: (event: { phase: 'start' | 'end'; record: ToolCallRecord }) => void;
  /**
   * The question's signal. Once it aborts no further tool call is made, the plan's worker is killed, and run()
   * settles with error kind 'cancelled' after the plan has ended; a run still waiting for its turn never starts.
   */
  signal?: AbortSignal;
  /** How `ask_user()` reaches the person (absent: nobody to ask, and it rejects saying so). The run's clock stops meanwhile. */
  askUser?: AskPerson;
  /** Told each answer the person gave through `ask_user()`, with the choices they were offered (for the flow policy). */
  onUserAnswer?: (answer: string, choices?: readonly string[]) => void;
  /** Saved plans the code may call as `skills.NAME(args)` (plan-skills.ts); their calls go through `caller` like any. */
  skills?: readonly PlanSkill[];
  /** The profile's embedding model: `mcp.search_tools` fuses its similarity with the word ranking (absent: words alone). */
  toolEmbedder?: Embedder;
}

/** Asks the person one question from a plan; resolves to their answer, or null when none came (declined, closed, timed out). */
export type AskPerson = (question: string, options: { choices?: string[] }, signal: AbortSignal) => Promise<string | null>;

/** Runs solve() in an isolate held by a disposable worker process. */
export interface Sandbox {
  run(options: SandboxRunOptions): Promise<SandboxResult>;
  /** Starts a worker process now, so the first run need not wait for one (its start-up overlaps other work). */
  prestart?(): void;
  /** Stops the worker process. */
  close(): Promise<void>;
}

// What the rest of the product knows about MCP tools: plain data, no SDK classes.

/** The MCP tool annotations we act on (all hints; the spec's defaults apply when one is missing). */
export interface ToolAnnotations {
  title?: string;
  /** Spec default false: a tool that says nothing may change its environment. */
  readOnlyHint?: boolean;
  /** Spec default true (meaningful only when not read-only): changes may destroy data. */
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/**
 * A tool offered by one of the configured MCP servers. Tools are (server, name) pairs (DESIGN §3.10):
 * `name` is what the model calls (unique across servers), `remoteName` what the server calls it.
 */
export interface ToolInfo {
  /** Id of the server that offers it (from the config). */
  server: string;
  /** The name offered to the model: the server's own name, or `<server>.<tool>` when servers share it. */
  name: string;
  /** The tool's name on its server. */
  remoteName: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: ToolAnnotations;
  /** The tool's `_meta` (e.g. `cortex-r/example` arguments for `cortex servers test`). */
  meta?: Record<string, unknown>;
  /** Runs only as an MCP task (2025-11-25): called as one, its status reported as progress. */
  taskOnly?: boolean;
}

/** The MCP CallToolResult, as the server sent it. */
export interface ToolResult {
  content: Array<{ type: string; text?: string; [key: string]: unknown }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** One part of an MCP ReadResourceResult: text or a base64 blob. */
export interface ResourceContents {
  uri: string;
  mimeType?: string;
  text?: string;
  blob?: string;
}

/** What `mcp.read_resource(uri)` got, and from which server. */
export interface ResourceReadResult {
  server: string;
  contents: ResourceContents[];
}

/** A progress notification a server sent for a call (MCP `notifications/progress`). */
export interface ToolProgress {
  progress: number;
  total?: number;
  message?: string;
}

/** Options of one call: its own time limit and a signal that abandons it. */
export interface CallOptions {
  signal?: AbortSignal;
  /** How long to wait without an answer or a progress notification; progress restarts the wait. */
  timeoutMs?: number;
  /** Longest a call may run however often it reports progress; default MAX_TOOL_CALL_WITH_PROGRESS_MS. */
  maxTotalTimeoutMs?: number;
  /** Called for each progress notification the server sends for this call. Must not throw. */
  onProgress?: (progress: ToolProgress) => void;
  /**
   * Called when the server asks the person something (elicitation) while this call is in flight; returns the
   * function called once they have answered. The time between counts against none of the call's time limits.
   */
  onWaitingForUser?: () => () => void;
  /** Sent as the request's `_meta` (e.g. the W3C `traceparent` of the call's span when traces are on). */
  meta?: Record<string, string>;
}

/** Whether a call may run; a refusal carries the reason the model is told. */
export type ApprovalDecision = { approved: true } | { approved: false; reason: string };

/**
 * Why the flow policy wants the user to decide a call (src/policy): `why` in plain words; `yesAllows` says whether
 * `--yes` answers for the user.
 */
export interface FlowConcern extends CallContext {
  why: string;
  yesAllows: boolean;
  /** For a tool nothing classes: the entry (`<server>.<tool>`) an "always" trusts from now on, or "never" refuses. */
  trustKey?: string;
}

/** What the person is told of a call beside its arguments (src/policy): where it goes, and what the question holds. */
export interface CallContext {
  /** Each place the call reaches, in plain words ("alice@example.org", "the file notes.txt"). */
  destinations: string[];
  /** What the question has read that the call could carry ("private data (notes.pdf)"). */
  holds: string[];
}

/** Asks the person behind one question whether a call may run once: true yes, false no, null when no answer came. */
export type AskApproval = (question: string, signal: AbortSignal) => Promise<boolean | null>;

/**
 * Asks whether a call to `tool` with `args` may run (the approval gate, DESIGN §3.10); `concern` when the flow policy
 * asks; `askPerson` when the question has someone to ask of its own (the page streaming it) and the session has not.
 */
export type ApproveTool = (tool: ToolInfo, args: Record<string, unknown>, options: ApproveOptions) => Promise<ApprovalDecision>;

/** What an ApproveTool is told beside the call; see ApproveTool. */
export interface ApproveOptions {
  signal: AbortSignal;
  concern?: FlowConcern;
  context?: CallContext;
  askPerson?: AskApproval;
  /**
   * Called when the answer will come from a person (the call is about to be asked about, or waits its turn behind
   * one being asked); returns the function called once it has come. The time between counts against none of the
   * run's time limits; an approval that answers at once never calls it.
   */
  onWaitingForUser?: () => () => void;
}

/** `mcp.read_resource(uri)` as the approvers see it: the server that answers is chosen by the URI, so it is named "mcp". */
export const RESOURCE_READER: ToolInfo = {
  server: 'mcp',
  name: 'mcp.read_resource',
  remoteName: 'read_resource',
  description: 'Reads a resource by URI from the server that offers it.',
  inputSchema: { type: 'object', properties: { uri: { type: 'string' } }, required: ['uri'] },
  annotations: { readOnlyHint: true },
};

/** Calls tools by (server, the server's own tool name); the seam the sandbox uses. */
export interface ToolCaller {
  callTool(server: string, tool: string, args: Record<string, unknown>, options?: CallOptions): Promise<ToolResult>;
  /** Reads a resource by URI on the server that owns it (`mcp.read_resource`); absent: no resources. */
  readResource?(uri: string, options?: CallOptions): Promise<ResourceReadResult>;
}

/** A server as perception sees it: from the config, plus its tool names and `instructions` (live or cached). */
export interface ServerSummary {
  id: string;
  description: string;
  capabilities: string[];
  /** Names of the tools it offers. */
  tools?: string[];
  /** The `instructions` it sent in initialize. */
  instructions?: string;
}

/**
 * How a configured server is doing: starting (in the background), ready, reconnecting (it went away and is being
 * brought back: see `reconnect`), failed, or disabled in the config.
 */
export interface ServerStatus {
  id: string;
  state: 'starting' | 'ready' | 'reconnecting' | 'failed' | 'disabled';
  description: string;
  tools: string[];
  /** Folders offered to it through roots/list: its own configured directories, else the profile's roots. */
  roots?: string[];
  error?: string;
  /** The MCP protocol version agreed with it, while it runs (e.g. `2025-11-25`, or `2026-07-28` through SDK v2). */
  protocolVersion?: string;
  /** While reconnecting: restarts without an answer so far, the wait before the next, the last reason. */
  reconnect?: { attempts: number; retryInMs: number; error: string };
}

/** An MCP prompt a server offers (prompts/list). */
export interface PromptInfo {
  server: string;
  name: string;
  description: string;
  arguments: Array<{ name: string; required: boolean }>;
}

/** Timeout, cancellation and progress of one request, as both SDKs take them. */
export interface SessionRequestOptions {
  timeout?: number;
  signal?: AbortSignal;
  onprogress?: (progress: { progress: number; total?: number; message?: string }) => void;
}

// Messages between the host and the sandbox worker process (Node IPC, JSON); the host trusts none of them.
/** Written to the worker's stderr just before it kills itself after isolated-vm's catastrophic error. */
export const CATASTROPHIC_MARKER = 'CORTEX_SANDBOX_CATASTROPHIC';
/** Starts the one stderr line a worker that cannot load isolated-vm writes before it exits; the rest says why. */
export const UNAVAILABLE_MARKER = 'CORTEX_SANDBOX_UNAVAILABLE ';

/**
 * How the code called: `mcp.call_tool` wants the raw CallToolResult, `tools.x` the parsed value,
 * `mcp.read_resource` a resource (the call's name is then the URI); `mcp.search_tools` and `mcp.describe_tool`
 * look tools up (the name is the query or the tool's name; see tool-search.ts); `ask_user` asks the person (the name
 * is the question; see ask-person.ts).
 */
export type CallMode = 'raw' | 'parsed' | 'resource' | 'search' | 'describe' | 'ask';
export const CALL_MODES: readonly CallMode[] = ['raw', 'parsed', 'resource', 'search', 'describe', 'ask'];

/** Host → worker: run one plan in a fresh isolate. */
export interface RunRequest {
  type: 'run';
  runId: number;
  code: string;
  toolNames: string[];
  /** Time left for the run when it is sent; the worker disposes the isolate when it runs out. */
  timeoutMs: number;
  memoryMb: number;
  maxOutputChars: number;
}

/** Everything the host sends the worker. */
export type HostMessage =
  | RunRequest
  | { type: 'toolReply'; runId: number; callId: number; reply: string }
  | { type: 'cancel'; runId: number }
  /** The run's clock stops while the user is asked to approve a call, and goes on after. */
  | { type: 'pauseDeadline'; runId: number }
  | { type: 'resumeDeadline'; runId: number };

/** Error kinds the worker can report; `cancelled` answers a host's cancel, `unavailable` is read from its exit. */
export type WorkerErrorKind =
  | 'runtime' | 'tool_error' | 'call_cap' | 'timeout' | 'memory' | 'no_solve' | 'syntax' | 'output_limit' | 'cancelled' | 'crash' | 'unavailable';

/** How solve() ended, as the worker saw it; `detail` is raw text the host turns into a message. */
export type WorkerOutcome = { ok: true; value: string } | { ok: false; kind: WorkerErrorKind; detail: string };

/** Everything the worker sends the host. */
export type WorkerMessage =
  | { type: 'toolCall'; runId: number; callId: number; name: string; argsJson: string; mode: CallMode }
  | { type: 'log'; runId: number; line: string }
  | {
      type: 'done';
      runId: number;
      outcome: WorkerOutcome;
      /** False when the isolate's thread did not stop after dispose: the worker must be replaced. */
      healthy: boolean;
      rssMb: number;
    };

const WORKER_ERROR_KINDS: ReadonlySet<string> = new Set<WorkerErrorKind>([
  'runtime', 'tool_error', 'call_cap', 'timeout', 'memory', 'no_solve', 'syntax', 'output_limit', 'cancelled', 'crash',
]);

/** Checks the shape of a message from the worker; anything malformed is null (and ignored). */
export function parseWorkerMessage(raw: unknown): WorkerMessage | null {
  if (typeof raw !== 'object' || raw === null) return null;
  const m = raw as Record<string, unknown>;
  if (typeof m.runId !== 'number') return null;
  switch (m.type) {
    case 'toolCall':
      if (typeof m.callId !== 'number' || typeof m.name !== 'string' || typeof m.argsJson !== 'string') return null;
      if (!CALL_MODES.includes(m.mode as CallMode)) return null;
      return { type: 'toolCall', runId: m.runId, callId: m.callId, name: m.name, argsJson: m.argsJson, mode: m.mode as CallMode };
    case 'log':
      return typeof m.line === 'string' ? { type: 'log', runId: m.runId, line: m.line } : null;
    case 'done': {
      const outcome = parseOutcome(m.outcome);
      if (!outcome) return null;
      return { type: 'done', runId: m.runId, outcome, healthy: m.healthy === true, rssMb: typeof m.rssMb === 'number' ? m.rssMb : 0 };
    }
    default:
      return null;
  }
}

function parseOutcome(raw: unknown): WorkerOutcome | null {
  if (typeof raw !== 'object' || raw === null) return null;
  const o = raw as Record<string, unknown>;
  if (o.ok === true && typeof o.value === 'string') return { ok: true, value: o.value };
  if (o.ok === false && typeof o.kind === 'string' && WORKER_ERROR_KINDS.has(o.kind) && typeof o.detail === 'string') {
    return { ok: false, kind: o.kind as WorkerErrorKind, detail: o.detail };
  }
  return null;
}

// An MCP server as the config resolved it: ready to spawn (stdio) or to connect to (HTTP / SSE).

/** stdio spawns `command`; http speaks Streamable HTTP to `url` (falling back to SSE); sse speaks the older SSE transport. */
export type ServerTransport = 'stdio' | 'http' | 'sse';

/** An MCP server ready to start: absolute paths, its own environment (nothing else of ours crosses). */
export interface ServerSpec {
  id: string;
  command: string;
  args: string[];
  cwd: string;
  /** Exactly what this server gets on top of the minimal base (PATH, HOME, locale): see server-env.ts. */
  env: Record<string, string>;
  description: string;
  capabilities: string[];
  /** Default stdio. */
  transport?: ServerTransport;
  /** For http and sse. */
  url?: string;
  /** HTTP headers sent to a remote server (e.g. Authorization). */
  headers?: Record<string, string>;
  /** How long starting (spawn, initialize, tools/list) may take; default DEFAULT_SERVER_START_TIMEOUT_MS. */
  startTimeoutMs?: number;
  /** Where the entry was written (`file:line`), for messages. */
  source?: string;
}

/** A configured server that will not start: `disabled: true`, or an entry that could not be used. */
export interface DisabledServer {
  id: string;
  /** 'disabled' when the config says so; 'broken' when the entry is unusable (see `reason`). */
  kind: 'disabled' | 'broken';
  /** One line: `file:line: key: what is wrong`. */
  reason: string;
  /** Where the entry is: `file:line`, or the file alone when the line is not known. */
  source: string;
}

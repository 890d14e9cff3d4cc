// MultiMCP: starts every configured server once in the background, keeps the sessions open, routes tool calls, restarts the dead.
import { pathToFileURL } from 'node:url';
import { basename } from 'node:path';
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import type { DisabledServer, ServerSpec } from '../config/server-spec.js';
import { McpError, errorMessage } from '../errors.js';
import { ServerConnection, StartTimeoutError, type RootFolder } from './server-connection.js';
import type { ToolCache } from './tool-cache.js';
import type { ServerStatus, ServerSummary, ToolCaller, ToolInfo, ToolResult } from './types.js';

/** Default time one tool call may take; well under the SDK's 60 s so the sandbox deadline stays in charge. */
export const TOOL_CALL_TIMEOUT_MS = 20_000;
/** Restarts allowed per server over the life of one MultiMcp, so a server that always crashes can't loop us. */
const MAX_RESTARTS_PER_SERVER = 5;

/** How MultiMcp starts its servers. */
export interface MultiMcpOptions {
  /** Folders offered through roots/list (profiles.yaml mcp.roots). */
  roots?: string[];
  /** Tool lists from earlier runs, used until a server is up; updated when one starts. */
  cache?: ToolCache;
  /** Configured servers that will not start, shown in statuses(). */
  disabled?: DisabledServer[];
  /** Called once when a server has failed to start (after its retry). Must not throw. */
  onFailure?: (serverId: string, reason: string) => void;
}

export class MultiMcp implements ToolCaller {
  private readonly failures = new Map<string, string>();
  private readonly restarts = new Map<string, number>();
  private readonly restarting = new Map<string, Promise<void>>();
  /** Settles (never rejects) when each server's first start has succeeded or failed. */
  private readonly started = new Map<string, Promise<void>>();
  private readonly cached = new Map<string, { instructions: string; tools: ToolInfo[] }>();
  /** Set by close(): starts cut short by shutting down are not failures worth reporting. */
  private closed = false;

  private constructor(
    private readonly connections: ServerConnection[],
    private readonly options: MultiMcpOptions,
  ) {}

  /**
   * Starts all servers in the background and returns at once: tools come from the cache until a server is up
   * (awaitTools waits for chosen ones). A failed start is retried once unless it timed out; a server that still
   * cannot start is reported in statuses() and through onFailure, and the others run.
   */
  static launch(specs: ServerSpec[], options: MultiMcpOptions = {}): MultiMcp {
    const roots: RootFolder[] = (options.roots ?? []).map((p) => ({ uri: pathToFileURL(p).href, name: basename(p) || p }));
    const multi = new MultiMcp(specs.map((s) => new ServerConnection(s, roots)), options);
    for (const c of multi.connections) {
      const hit = options.cache?.get(c.spec);
      if (hit) multi.cached.set(c.spec.id, hit);
      multi.started.set(c.spec.id, multi.firstStart(c));
    }
    return multi;
  }

  /** Starts all servers in parallel and waits for every one to be up or failed. */
  static async start(specs: ServerSpec[], options: MultiMcpOptions = {}): Promise<MultiMcp> {
    const multi = MultiMcp.launch(specs, options);
    await Promise.all(multi.started.values());
    return multi;
  }

  private async firstStart(c: ServerConnection): Promise<void> {
    try {
      await c.start().catch((err: unknown) => {
        // One retry for a server that crashed on start; not after its deadline, nor once we are shutting down.
        if (err instanceof StartTimeoutError || this.closed) throw err;
        return c.start();
      });
      if (this.closed) return c.shutdown();
      this.cached.delete(c.spec.id);
      await this.options.cache?.put(c.spec, { serverVersion: c.serverVersion, instructions: c.instructions, tools: c.tools });
    } catch (err) {
      this.cached.delete(c.spec.id);
      this.failures.set(c.spec.id, this.closed ? 'closed before it started' : errorMessage(err));
      if (!this.closed) this.options.onFailure?.(c.spec.id, errorMessage(err));
    }
  }

  /**
   * Waits until the given servers (all when omitted) have started or failed, then returns their live tools. Other
   * servers are not waited for. Rejects only when `signal` aborts.
   */
  async awaitTools(serverIds?: readonly string[], signal?: AbortSignal): Promise<ToolInfo[]> {
    const waits = this.connections.filter((c) => !serverIds || serverIds.includes(c.spec.id)).map((c) => this.started.get(c.spec.id));
    const all = Promise.all(waits);
    if (signal) {
      signal.throwIfAborted();
      await new Promise<void>((resolve, reject) => {
        const onAbort = () => reject(signal.reason);
        signal.addEventListener('abort', onAbort, { once: true });
        void all.then(() => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        });
      });
    } else {
      await all;
    }
    return this.listTools(serverIds);
  }

  /** Tools of the servers that have not failed (live, else cached from an earlier run), optionally only of the given ids. */
  listTools(serverIds?: readonly string[]): ToolInfo[] {
    return this.connections
      .filter((c) => !this.failures.has(c.spec.id) && (!serverIds || serverIds.includes(c.spec.id)))
      .flatMap((c) => this.toolsOf(c));
  }

  private toolsOf(c: ServerConnection): ToolInfo[] {
    return this.cached.get(c.spec.id)?.tools ?? c.tools;
  }

  /** The servers that have not failed, as perception sees them: description, tool names and instructions (live or cached). */
  summaries(): ServerSummary[] {
    return this.connections
      .filter((c) => !this.failures.has(c.spec.id))
      .map((c) => ({
        id: c.spec.id,
        description: c.spec.description,
        capabilities: c.spec.capabilities,
        tools: this.toolsOf(c).map((t) => t.name),
        instructions: this.cached.get(c.spec.id)?.instructions ?? c.instructions,
      }));
  }

  statuses(): ServerStatus[] {
    const running: ServerStatus[] = this.connections.map((c) => {
      const error = this.failures.get(c.spec.id);
      const state = error ? 'failed' : c.alive ? 'ready' : 'starting';
      return {
        id: c.spec.id,
        state,
        description: c.spec.description,
        tools: this.toolsOf(c).map((t) => t.name),
        ...(error ? { error } : {}),
      };
    });
    const off: ServerStatus[] = (this.options.disabled ?? []).map((d) => ({
      id: d.id,
      state: d.kind === 'disabled' ? 'disabled' : 'failed',
      description: '',
      tools: [],
      error: d.reason,
    }));
    return [...running, ...off];
  }

  /** The server process id of a server, while it runs. */
  pidOf(serverId: string): number | null {
    return this.connection(serverId).pid;
  }

  /**
   * Calls a tool on the server that offers it. A server found dead is restarted first; a server that dies
   * during the call is restarted and the call retried once. Throws McpError for unknown tools, timeouts
   * and servers that cannot be brought back.
   */
  async callTool(
    name: string,
    args: Record<string, unknown>,
    { timeoutMs = TOOL_CALL_TIMEOUT_MS, signal }: { timeoutMs?: number; signal?: AbortSignal } = {},
  ): Promise<ToolResult> {
    const conn = this.connections.find((c) => c.alive && c.tools.some((t) => t.name === name))
      ?? this.connections.find((c) => !this.failures.has(c.spec.id) && this.toolsOf(c).some((t) => t.name === name));
    if (!conn) throw new McpError('(none)', `no running server offers a tool named "${name}"`);
    await this.started.get(conn.spec.id);
    if (this.failures.has(conn.spec.id)) throw new McpError(conn.spec.id, this.failures.get(conn.spec.id)!);
    if (!conn.alive) await this.restart(conn);
    try {
      return await conn.call(name, args, { timeoutMs, ...(signal ? { signal } : {}) });
    } catch (err) {
      const connectionLost = !conn.alive || (err as { code?: unknown }).code === ErrorCode.ConnectionClosed;
      if (!connectionLost || signal?.aborted) throw wrap(conn.spec.id, name, err);
      await this.restart(conn);
      try {
        return await conn.call(name, args, { timeoutMs, ...(signal ? { signal } : {}) });
      } catch (retryErr) {
        throw wrap(conn.spec.id, name, retryErr);
      }
    }
  }

  private async restart(conn: ServerConnection): Promise<void> {
    const id = conn.spec.id;
    const pending = this.restarting.get(id);
    if (pending) return pending;
    const count = this.restarts.get(id) ?? 0;
    if (count >= MAX_RESTARTS_PER_SERVER) {
      throw new McpError(id, `stopped after crashing ${count + 1} times; see its stderr with \`cortex servers test ${id}\``);
    }
    this.restarts.set(id, count + 1);
    const promise = conn.start().finally(() => this.restarting.delete(id));
    this.restarting.set(id, promise);
    return promise;
  }

  private connection(serverId: string): ServerConnection {
    const conn = this.connections.find((c) => c.spec.id === serverId);
    if (!conn) throw new McpError(serverId, 'is not configured');
    return conn;
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.connections.map((c) => c.shutdown()));
  }
}

function wrap(server: string, tool: string, err: unknown): McpError {
  return err instanceof McpError ? err : new McpError(server, `tool "${tool}" failed: ${errorMessage(err)}`, { cause: err });
}

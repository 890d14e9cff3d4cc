// MultiMCP: starts every configured server once, keeps the sessions open, routes tool calls, restarts the dead.
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import type { ServerSpec } from '../config/load-config.js';
import { McpError, errorMessage } from '../errors.js';
import { ServerConnection } from './server-connection.js';
import type { ServerStatus, ToolCaller, ToolInfo, ToolResult } from './types.js';

/** Default time one tool call may take; well under the SDK's 60 s so the sandbox deadline stays in charge. */
export const TOOL_CALL_TIMEOUT_MS = 20_000;
/** Restarts allowed per server over the life of one MultiMcp, so a server that always crashes can't loop us. */
const MAX_RESTARTS_PER_SERVER = 5;

export class MultiMcp implements ToolCaller {
  private readonly failures = new Map<string, string>();
  private readonly restarts = new Map<string, number>();
  private readonly restarting = new Map<string, Promise<void>>();

  private constructor(private readonly connections: ServerConnection[]) {}

  /** Starts all servers in parallel. A server that cannot start is reported in statuses(); the others run. */
  static async start(specs: ServerSpec[]): Promise<MultiMcp> {
    const multi = new MultiMcp(specs.map((s) => new ServerConnection(s)));
    await Promise.all(
      multi.connections.map((c) =>
        c.start().catch((err: unknown) => {
          multi.failures.set(c.spec.id, errorMessage(err));
        }),
      ),
    );
    return multi;
  }

  /** Tools of the running servers, optionally only those of the given server ids. */
  listTools(serverIds?: readonly string[]): ToolInfo[] {
    return this.connections
      .filter((c) => !this.failures.has(c.spec.id) && (!serverIds || serverIds.includes(c.spec.id)))
      .flatMap((c) => c.tools);
  }

  statuses(): ServerStatus[] {
    return this.connections.map((c) => {
      const error = this.failures.get(c.spec.id);
      return {
        id: c.spec.id,
        state: error ? 'failed' : 'ready',
        description: c.spec.description,
        tools: c.tools.map((t) => t.name),
        ...(error ? { error } : {}),
      };
    });
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
      ?? this.connections.find((c) => !this.failures.has(c.spec.id) && c.tools.some((t) => t.name === name));
    if (!conn) throw new McpError('(none)', `no running server offers a tool named "${name}"`);
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
    await Promise.all(this.connections.map((c) => c.close()));
  }
}

function wrap(server: string, tool: string, err: unknown): McpError {
  return err instanceof McpError ? err : new McpError(server, `tool "${tool}" failed: ${errorMessage(err)}`, { cause: err });
}

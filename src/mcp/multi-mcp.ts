// MultiMCP: starts every configured server once, keeps the sessions open, routes tool calls, restarts the dead.
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import type { ServerSpec } from '../config/load-config.js';
import { McpError, errorMessage } from '../errors.js';
import { ServerConnection } from './server-connection.js';
import { offeredNames } from './offered-names.js';
import type { CallOptions, ResourceReadResult, ServerStatus, ToolCaller, ToolInfo, ToolResult } from './types.js';

/** Default time one tool call may take; well under the SDK's 60 s so the sandbox deadline stays in charge. */
export const TOOL_CALL_TIMEOUT_MS = 20_000;
/** Restarts allowed per server over the life of one MultiMcp, so a server that always crashes can't loop us. */
const MAX_RESTARTS_PER_SERVER = 5;
/** Resource URIs remembered with the server whose tool result named them, so a big session can't grow it without end. */
const MAX_REMEMBERED_RESOURCE_URIS = 1_000;

export class MultiMcp implements ToolCaller {
  private readonly failures = new Map<string, string>();
  private readonly restarts = new Map<string, number>();
  private readonly restarting = new Map<string, Promise<void>>();
  /** Resource URI → the server whose tool result carried it (a link or an embedded resource). */
  private readonly resourceOwners = new Map<string, string>();

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

  /**
   * Tools of the running servers, optionally only those of the given server ids. Names are unique:
   * a name several servers offer is given as `<server>.<tool>` on each of them (see offeredNames()),
   * decided over all running servers so a name does not change with the ids asked for.
   */
  listTools(serverIds?: readonly string[]): ToolInfo[] {
    const running = this.connections.filter((c) => !this.failures.has(c.spec.id)).flatMap((c) => c.tools);
    const names = offeredNames(running);
    return running
      .map((t, i) => ({ ...t, name: names[i]! }))
      .filter((t) => !serverIds || serverIds.includes(t.server));
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
   * Calls `tool` (the server's own name for it) on server `serverId`. A server found dead is restarted
   * first; a server that dies during the call is restarted and the call retried once. Throws McpError for
   * unknown servers and tools, timeouts and servers that cannot be brought back.
   */
  async callTool(serverId: string, tool: string, args: Record<string, unknown>, options: CallOptions = {}): Promise<ToolResult> {
    const conn = this.connection(serverId);
    if (this.failures.has(serverId)) throw new McpError(serverId, `did not start, so tool "${tool}" cannot be called`);
    if (!conn.tools.some((t) => t.remoteName === tool)) throw new McpError(serverId, `offers no tool named "${tool}"`);
    const result = await this.withRestart(conn, `tool "${tool}"`, options, () => conn.call(tool, args, callOptions(options)));
    this.rememberResources(serverId, result);
    return result;
  }

  /**
   * Reads a resource: from the server whose tool result named the URI, else from each running server that
   * offers resources, in config order, until one has it. Throws McpError when none does.
   */
  async readResource(uri: string, options: CallOptions = {}): Promise<ResourceReadResult> {
    const owner = this.resourceOwners.get(uri);
    const candidates = owner
      ? [this.connection(owner)]
      : this.connections.filter((c) => !this.failures.has(c.spec.id) && c.offersResources);
    if (candidates.length === 0) throw new McpError('(none)', `no running server offers resources, so "${uri}" cannot be read`);
    const problems: string[] = [];
    for (const conn of candidates) {
      if (options.signal?.aborted) break;
      try {
        const contents = await this.withRestart(conn, `reading "${uri}"`, options, () => conn.readResource(uri, callOptions(options)));
        return { server: conn.spec.id, contents };
      } catch (err) {
        problems.push(`${conn.spec.id}: ${errorMessage(err)}`);
      }
    }
    throw new McpError(owner ?? '(none)', `could not read resource "${uri}" (${problems.join('; ') || 'cancelled'})`);
  }

  private async withRestart<T>(conn: ServerConnection, what: string, options: CallOptions, attempt: () => Promise<T>): Promise<T> {
    if (!conn.alive) await this.restart(conn);
    try {
      return await attempt();
    } catch (err) {
      const connectionLost = !conn.alive || (err as { code?: unknown }).code === ErrorCode.ConnectionClosed;
      if (!connectionLost || options.signal?.aborted) throw wrap(conn.spec.id, what, err);
      await this.restart(conn);
      try {
        return await attempt();
      } catch (retryErr) {
        throw wrap(conn.spec.id, what, retryErr);
      }
    }
  }

  private rememberResources(serverId: string, result: ToolResult): void {
    for (const item of Array.isArray(result?.content) ? result.content : []) {
      const uri = item?.type === 'resource_link' ? item.uri : item?.type === 'resource' ? (item.resource as { uri?: unknown } | undefined)?.uri : undefined;
      if (typeof uri !== 'string') continue;
      if (this.resourceOwners.size >= MAX_REMEMBERED_RESOURCE_URIS) this.resourceOwners.delete(this.resourceOwners.keys().next().value!);
      this.resourceOwners.set(uri, serverId);
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

function callOptions({ timeoutMs = TOOL_CALL_TIMEOUT_MS, signal }: CallOptions): { timeoutMs: number; signal?: AbortSignal } {
  return { timeoutMs, ...(signal ? { signal } : {}) };
}

/** `what` names the request, e.g. `tool "add"`. */
function wrap(server: string, what: string, err: unknown): McpError {
  return err instanceof McpError ? err : new McpError(server, `${what} failed: ${errorMessage(err)}`, { cause: err });
}

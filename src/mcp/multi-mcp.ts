// MultiMCP: starts every configured server once in the background, keeps the sessions open, routes tool calls, restarts the dead.
import { join } from 'node:path';
import type { LoadedConfig } from '../config/load-config.js';
import type { DisabledServer, ServerSpec } from '../config/server-spec.js';
import { McpError, errorMessage } from '../errors.js';
import { isAuthFailure, isConnectionClosed, isSessionLost, neverReachedServer } from './call-failure.js';
import type { Elicit } from './elicitation.js';
import { Healer, reconnectText, type HealTimer, type ServerStateEvent } from './healing.js';
import { OAuthStore } from './oauth/store.js';
import { MODERN_PROTOCOL_VERSIONS } from './modern-session.js';
import { clientSdk } from './client-sdk.js';
import { offeredNames } from './offered-names.js';
import { UnsupportedProtocolError } from './protocol-version.js';
import { rootsFor } from './roots.js';
import { ServerConnection, StartTimeoutError } from './server-connection.js';
import { ToolCache } from './tool-cache.js';
import type { CallOptions, PromptInfo, ResourceReadResult, ServerStatus, ServerSummary, ToolCaller, ToolInfo, ToolResult } from './types.js';
import { SANDBOX_LIMITS } from '../config/limits.js';

/** One call's own time limit when the caller gives none: the profile's default (config/limits.ts). */
export const TOOL_CALL_TIMEOUT_MS = SANDBOX_LIMITS.toolTimeoutMs.default;
/** Longest a call that keeps reporting progress may run (each notification restarts its own timeout); the sandbox deadline may cut it shorter. */
export const MAX_TOOL_CALL_WITH_PROGRESS_MS = 10 * 60_000;
/** Resource URIs remembered with the server whose tool result named them, so a big session can't grow it without end. */
const MAX_REMEMBERED_RESOURCE_URIS = 1_000;

/** How MultiMcp starts its servers. */
export interface MultiMcpOptions {
  /** Folders offered through roots/list (profiles.yaml mcp.roots). */
  roots?: string[];
  /** Tool lists from earlier runs, used until a server is up; updated when one starts. */
  cache?: ToolCache;
  /** Configured servers that will not start, shown in statuses(). */
  disabled?: DisabledServer[];
  /** Sign-in state of remote servers (`cortex servers login`); absent: no OAuth. */
  oauthStore?: OAuthStore;
  /** Asks the person when a server requests input (elicitation); absent: declined, saying nobody can answer. */
  elicit?: Elicit;
  /** Called once when a server has failed to start (after its retry). Must not throw. */
  onFailure?: (serverId: string, reason: string) => void;
  /**
   * Start a server whose tool list is cached only when a question needs it (awaitTools names it, or one of its
   * tools is called), so a one-shot `ask` starts just the servers perception picked. Default false: all start at once.
   */
  lazy?: boolean;
  /** When the background attempts to bring a lost server back run (see Healer); default: the real clock. */
  healTimer?: HealTimer;
  /** Told when a server that went away is waiting to be retried, and when it is back. Must not throw. */
  onServerState?: (event: ServerStateEvent) => void;
  /** The clock tool-list freshness (2026-07-28 cache hints) is read on; default Date.now. */
  now?: () => number;
}

/** How every command starts the configured servers: roots, the tool cache (`mcp-tools.json` in the profile's cache folder), the disabled ones for statuses. */
export async function multiMcpOptions(config: LoadedConfig): Promise<MultiMcpOptions> {
  return {
    roots: config.roots,
    cache: await ToolCache.load(join(config.paths.cache, 'mcp-tools.json')),
    disabled: config.disabledServers,
    oauthStore: oauthStoreOf(config),
  };
}

/** Where sign-ins are kept: the `oauth` folder of the profile's cache folder. */
export function oauthStoreOf(config: LoadedConfig): OAuthStore {
  return new OAuthStore(join(config.paths.cache, 'oauth'));
}

export class MultiMcp implements ToolCaller {
  private readonly failures = new Map<string, string>();
  private readonly healer: Healer;
  /** Settles (never rejects) when each server's first start has succeeded or failed. */
  private readonly started = new Map<string, Promise<void>>();
  private readonly cached = new Map<string, { instructions: string; tools: ToolInfo[] }>();
  /** Resource URI → the server whose tool result carried it (a link or an embedded resource). */
  private readonly resourceOwners = new Map<string, string>();
  /** Set by close(): starts cut short by shutting down are not failures worth reporting. */
  private closed = false;

  private constructor(
    private readonly connections: ServerConnection[],
    private readonly options: MultiMcpOptions,
  ) {
    this.healer = new Healer({ ...(options.healTimer ? { timer: options.healTimer } : {}), ...(options.onServerState ? { onState: options.onServerState } : {}) });
  }

  /**
   * Starts all servers in the background and returns at once: tools come from the cache until a server is up
   * (awaitTools waits for chosen ones). A failed start is retried once unless it timed out; a server that still
   * cannot start is reported in statuses() and through onFailure, and the others run.
   */
  static launch(specs: ServerSpec[], options: MultiMcpOptions = {}): MultiMcp {
    const multi = new MultiMcp(specs.map((s) => new ServerConnection(s, rootsFor(s, options.roots ?? []), options.oauthStore, options.elicit)), options);
    for (const c of multi.connections) {
      const hit = options.cache?.get(c.spec);
      if (hit) multi.cached.set(c.spec.id, hit);
      // A server that spoke 2026-07-28 last run is spoken to in it at once (a 2025 one is probed again: it may have moved on).
      if (hit?.protocolVersion && MODERN_PROTOCOL_VERSIONS.includes(hit.protocolVersion)) c.protocolVersion = hit.protocolVersion;
      if (options.now) c.now = options.now;
      // A list the server said stays fresh is used as it is until then (ServerConnection.start does not list it).
      if (hit?.toolsFreshUntil !== undefined) {
        c.tools = hit.tools;
        c.toolsFreshUntil = hit.toolsFreshUntil;
        c.toolsListedBy = hit.serverVersion;
      }
      if (!(options.lazy && hit)) multi.started.set(c.spec.id, multi.firstStart(c));
    }
    return multi;
  }

  /** Starts all servers in parallel and waits for every one to be up or failed. */
  static async start(specs: ServerSpec[], options: MultiMcpOptions = {}): Promise<MultiMcp> {
    const multi = MultiMcp.launch(specs, options);
    await Promise.all(multi.connections.map((c) => multi.firstStartOf(c)));
    return multi;
  }

  /** The first start of `c`, begun now when launch deferred it (lazy). Settles, never rejects. */
  private firstStartOf(c: ServerConnection): Promise<void> {
    let started = this.started.get(c.spec.id);
    if (!started) {
      started = this.firstStart(c);
      this.started.set(c.spec.id, started);
    }
    return started;
  }

  private async firstStart(c: ServerConnection): Promise<void> {
    try {
      await c.start().catch((err: unknown) => {
        // One retry for a server that crashed on start; not after its deadline, not when it wants a sign-in or speaks
        // no version we know (a second try would be refused alike), nor once we are shutting down.
        if (err instanceof StartTimeoutError || err instanceof UnsupportedProtocolError || isAuthFailure(err) || this.closed) throw err;
        return c.start();
      });
      if (this.closed) return c.shutdown();
      this.cached.delete(c.spec.id);
      const fresh = c.toolsFreshUntil !== undefined ? { toolsFreshUntil: c.toolsFreshUntil } : {};
      await this.options.cache?.put(c.spec, { serverVersion: c.serverVersion, instructions: c.instructions, tools: c.tools, protocolVersion: c.protocolVersion, ...fresh });
    } catch (err) {
      this.cached.delete(c.spec.id);
      this.failures.set(c.spec.id, this.closed ? 'closed before it started' : errorMessage(err));
      if (!this.closed) this.options.onFailure?.(c.spec.id, errorMessage(err));
    }
  }

  /**
   * Waits until the given servers (all when omitted) have started or failed, then returns their live tools. Other
   * servers are not waited for. A server in `cacheWillDo` whose tool list is cached is neither started nor waited
   * for: its cached tools are returned, and it starts on prestart() or its first call. Rejects only when `signal` aborts.
   */
  async awaitTools(serverIds?: readonly string[], signal?: AbortSignal, cacheWillDo?: ReadonlySet<string>): Promise<ToolInfo[]> {
    const chosen = this.connections.filter((c) => !serverIds || serverIds.includes(c.spec.id));
    const waits = chosen.filter((c) => !(cacheWillDo?.has(c.spec.id) && this.cached.has(c.spec.id))).map((c) => this.firstStartOf(c));
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

  /**
   * Loads the client code servers are started with (e.g. while a model answers), so a server started afterwards is
   * launched at once instead of after that load.
   */
  warmUp(): void {
    if (this.connections.some((c) => !this.started.has(c.spec.id))) void clientSdk().catch(() => undefined);
  }

  /** Begins the first start of the given servers, without waiting for it. */
  prestart(serverIds: readonly string[]): void {
    for (const c of this.connections) if (serverIds.includes(c.spec.id)) void this.firstStartOf(c);
  }

  /**
   * Tools of the servers that have not failed (live, else cached from an earlier run), optionally only those of
   * the given server ids. Names are unique: a name several servers offer is given as `<server>.<tool>` on each of
   * them (see offeredNames()), decided over all servers so a name does not change with the ids asked for.
   */
  listTools(serverIds?: readonly string[]): ToolInfo[] {
    const all = this.connections.filter((c) => !this.failures.has(c.spec.id)).flatMap((c) => this.toolsOf(c));
    const names = offeredNames(all);
    return all.map((t, i) => ({ ...t, name: names[i]! })).filter((t) => !serverIds || serverIds.includes(t.server));
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
        tools: this.toolsOf(c).map((t) => t.remoteName),
        instructions: this.cached.get(c.spec.id)?.instructions ?? c.instructions,
      }));
  }

  statuses(): ServerStatus[] {
    const running: ServerStatus[] = this.connections.map((c) => {
      const reconnect = this.healer.state(c.spec.id);
      const error = this.failures.get(c.spec.id) ?? (reconnect ? reconnectText(reconnect) : undefined);
      const state = this.failures.has(c.spec.id) ? 'failed' : reconnect ? 'reconnecting' : c.alive ? 'ready' : 'starting';
      return {
        id: c.spec.id,
        state,
        description: c.spec.description,
        tools: this.toolsOf(c).map((t) => t.remoteName),
        roots: c.roots.map((r) => r.path),
        ...(error ? { error } : {}),
        ...(reconnect ? { reconnect } : {}),
        ...(c.alive && c.protocolVersion ? { protocolVersion: c.protocolVersion } : {}),
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
   * Calls `tool` (the server's own name for it) on server `serverId`, waiting for the server's first start. A
   * server found dead is restarted first; a server that dies during the call is restarted and the call retried
   * once. Throws McpError for unknown servers and tools, timeouts and servers that cannot be brought back.
   */
  async callTool(serverId: string, tool: string, args: Record<string, unknown>, options: CallOptions = {}): Promise<ToolResult> {
    const conn = this.connection(serverId);
    await this.firstStartOf(conn);
    const failure = this.failures.get(serverId);
    if (failure) throw new McpError(serverId, `did not start (${failure}), so tool "${tool}" cannot be called`);
    if (!conn.tools.some((t) => t.remoteName === tool)) throw new McpError(serverId, `offers no tool named "${tool}"`);
    const readOnly = conn.tools.find((t) => t.remoteName === tool)?.annotations?.readOnlyHint === true;
    const result = await this.withRestart(conn, `tool "${tool}"`, options, readOnly, () => conn.call(tool, args, callOptions(options)));
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
        const contents = await this.withRestart(conn, `reading "${uri}"`, options, true, () => conn.readResource(uri, callOptions(options)));
        return { server: conn.spec.id, contents };
      } catch (err) {
        problems.push(`${conn.spec.id}: ${errorMessage(err)}`);
      }
    }
    throw new McpError(owner ?? '(none)', `could not read resource "${uri}" (${problems.join('; ') || 'cancelled'})`);
  }

  /**
   * Runs `attempt`, restarting the server first when it is known dead. When the attempt fails because the server
   * went away, the server is restarted (a new session for a remote one) and the attempt made once more if that is
   * safe: see mayRetry().
   */
  private async withRestart<T>(conn: ServerConnection, what: string, options: CallOptions, readOnly: boolean, attempt: () => Promise<T>): Promise<T> {
    if (!conn.alive) await this.healer.restart(conn, 'its connection had closed');
    try {
      return this.answered(conn, await attempt());
    } catch (err) {
      if (options.signal?.aborted || !mayRetry(conn, err, readOnly)) throw wrap(conn.spec.id, what, err);
      await this.healer.restart(conn, err);
      try {
        return this.answered(conn, await attempt());
      } catch (retryErr) {
        throw wrap(conn.spec.id, what, retryErr);
      }
    }
  }

  /** Prompts of every running server that offers them; a server that fails to list them is left out. */
  async listPrompts(): Promise<PromptInfo[]> {
    await Promise.all(this.started.values());
    const lists = await Promise.all(this.connections.map((c) => c.listPrompts({ timeoutMs: TOOL_CALL_TIMEOUT_MS }).catch(() => [])));
    return lists.flat();
  }

  /** The text of prompt `name` (on `serverId`, or the first server offering it); throws McpError when none does. */
  async getPrompt(name: string, args: Record<string, string>, serverId?: string): Promise<{ server: string; text: string }> {
    const owner = (await this.listPrompts()).find((p) => p.name === name && (!serverId || p.server === serverId));
    if (!owner) throw new McpError(serverId ?? '(none)', `no running server offers a prompt named "${name}"`);
    const conn = this.connection(owner.server);
    return { server: owner.server, text: await conn.getPrompt(name, args, { timeoutMs: TOOL_CALL_TIMEOUT_MS }) };
  }

  private rememberResources(serverId: string, result: ToolResult): void {
    for (const item of Array.isArray(result?.content) ? result.content : []) {
      const uri = item?.type === 'resource_link' ? item.uri : item?.type === 'resource' ? (item.resource as { uri?: unknown } | undefined)?.uri : undefined;
      if (typeof uri !== 'string') continue;
      if (this.resourceOwners.size >= MAX_REMEMBERED_RESOURCE_URIS) this.resourceOwners.delete(this.resourceOwners.keys().next().value!);
      this.resourceOwners.set(uri, serverId);
    }
  }

  /** `result`, noting that the server answered (which ends its streak of restarts). */
  private answered<T>(conn: ServerConnection, result: T): T {
    this.healer.answered(conn.spec.id);
    return result;
  }

  private connection(serverId: string): ServerConnection {
    const conn = this.connections.find((c) => c.spec.id === serverId);
    if (!conn) throw new McpError(serverId, 'is not configured');
    return conn;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.healer.close();
    await Promise.all(this.connections.map((c) => c.shutdown()));
  }
}

function callOptions({ timeoutMs = TOOL_CALL_TIMEOUT_MS, maxTotalTimeoutMs = MAX_TOOL_CALL_WITH_PROGRESS_MS, signal, onProgress, onWaitingForUser, meta }: CallOptions) {
  return { timeoutMs, maxTotalTimeoutMs, ...(signal ? { signal } : {}), ...(onProgress ? { onProgress } : {}), ...(onWaitingForUser ? { onWaitingForUser } : {}), ...(meta ? { meta } : {}) };
}

/**
 * Whether a failed request may be sent again after a restart. Always when the server never ran it: a remote server
 * that no longer knows our session refuses the request (404, or 400 "no valid session"), and a refused connection
 * never reached it. When the connection broke under the request, a remote server may have run it, so only a
 * read-only tool (or a resource read) is sent again; a stdio server's process is gone with whatever it was doing,
 * and its call is sent again as before.
 */
function mayRetry(conn: ServerConnection, err: unknown, readOnly: boolean): boolean {
  if (isSessionLost(err) || neverReachedServer(err)) return true;
  if (conn.alive && !isConnectionClosed(err)) return false;
  const remote = conn.spec.transport === 'http' || conn.spec.transport === 'sse';
  return remote ? readOnly : true;
}

/** `what` names the request, e.g. `tool "add"`. */
function wrap(server: string, what: string, err: unknown): McpError {
  return err instanceof McpError ? err : new McpError(server, `${what} failed: ${errorMessage(err)}`, { cause: err });
}

// One MCP server over stdio, Streamable HTTP or SSE: start within a deadline, list tools, call, notice when it dies.
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ElicitRequestSchema, ListRootsRequestSchema, type ElicitRequest, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { DEFAULT_SERVER_START_TIMEOUT_MS } from '../config/mcp-entries.js';
import { baseServerEnv } from '../config/server-env.js';
import type { ServerSpec } from '../config/server-spec.js';
import { McpError, errorMessage } from '../errors.js';
import { authMessage, hasAuthorizationHeader, isAuthFailure, isBrokenSocket } from './call-failure.js';
import { CallClock, sdkBackstopMs } from './call-clock.js';
import { clientSdk, httpClientSdk, sdkSchemaValidator, type ClientSdk, type HttpClientSdk } from './client-sdk.js';
import { answerElicitation, type Elicit } from './elicitation.js';
import { oauthProviderFor } from './oauth/provider.js';
import type { OAuthStore } from './oauth/store.js';
import { malformedResultMessage } from './malformed-result-message.js';
import { listTools } from './list-tools.js';
import { LazyOutputValidators, UnusableOutputSchemaError } from './output-validators.js';
import { definitionOf, legacySession, type McpSession } from './mcp-session.js';
import { MODERN_PROTOCOL_VERSIONS, connectModern, modernVersionIn, type ModernTarget } from './modern-session.js';
import type { RootFolder } from './roots.js';
import { UnsupportedProtocolError, offeredVersions } from './protocol-version.js';
import { startFailure } from './start-failure.js';
import { untilAborted } from '../time/until-aborted.js';
import type { PromptInfo, ResourceContents, ToolInfo, ToolProgress, ToolResult } from './types.js';
import { VERSION } from '../version.js';

/** Largest single message read from a stdio server: room for a big image result, yet a 20 MB tools/list is refused. */
export const MAX_STDIO_MESSAGE_BYTES = 16 * 1024 * 1024;
/** Last stderr characters kept per server, searched for the real cause when it fails. */
const STDERR_TAIL_CHARS = 8_000;
/** Transport errors kept while starting (the first ones say what went wrong; later ones are echoes). */
const MAX_TRANSPORT_ERRORS_KEPT = 5;
/** Server `instructions` kept, so one server cannot crowd the perception prompt. */
const MAX_INSTRUCTIONS_CHARS = 2_000;

export type { RootFolder } from './roots.js';

/** Thrown when a server takes longer than its start deadline: not worth the one retry. */
export class StartTimeoutError extends McpError {}

export class ServerConnection {
  /** The SDK client of the session (v1 or v2): its identity tells the current session's onclose from a stale one. */
  private client: { close(): Promise<void> } | undefined;
  private session: McpSession | undefined;
  private pidOfSession: () => number | null = () => null;
  private stderrTail = '';
  /** Sign-in of the start under way (null: none); see signIn(). */
  private provider: OAuthClientProvider | null | undefined;
  /** The MCP protocol version agreed with the server (e.g. `2025-11-25`, `2026-07-28`). */
  protocolVersion = '';
  tools: ToolInfo[] = [];
  /** Until when (epoch ms) `tools` may be used without listing again, as the server said; undefined: list at every start. */
  toolsFreshUntil: number | undefined;
  /** The server version (`name@version`) that listed `tools`: another version's list is never taken as fresh. */
  toolsListedBy = '';
  /** The clock freshness is read on (tests inject one). */
  now: () => number = Date.now;
  /** The server's `instructions` from initialize, bounded. */
  instructions = '';
  /** The version the server reported in initialize (`name@version`). */
  serverVersion = '';
  alive = false;
  /** Set by shutdown(): a start in progress stops instead of spawning or waiting on. */
  private stopped = false;
  /** Calls in flight, each as the function that stops its clocks (see whilePersonAsked()). */
  private readonly callsInFlight = new Set<() => () => void>();

  constructor(
    readonly spec: ServerSpec,
    /** What roots/list answers this server (see rootsFor()). */
    readonly roots: RootFolder[] = [],
    /** Sign-in state of remote servers; absent: no OAuth (a 401 is reported as such). */
    private readonly oauthStore?: OAuthStore,
    /** Asks the person when the server requests input; absent: requests are declined with the reason. */
    private readonly elicit?: Elicit,
  ) {}

  /** Starts the server and lists its tools within its start deadline; throws McpError saying the real cause. */
  async start(): Promise<void> {
    await this.close();
    if (this.stopped) throw new McpError(this.spec.id, 'shut down before it started');
    this.stderrTail = '';
    this.provider = undefined;
    const limitMs = this.spec.startTimeoutMs ?? DEFAULT_SERVER_START_TIMEOUT_MS;
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), limitMs);
    const transportErrors: unknown[] = [];
    const keepError = (err: unknown) => {
      if (transportErrors.length < MAX_TRANSPORT_ERRORS_KEPT) transportErrors.push(err);
    };
    try {
      const session = await this.connectNewestFirst(limitMs, deadline.signal, keepError);
      this.session = session;
      this.protocolVersion = session.protocolVersion;
      this.serverVersion = describeVersion(session.getServerVersion());
      this.instructions = (session.getInstructions() ?? '').slice(0, MAX_INSTRUCTIONS_CHARS);
      // A list the server said stays fresh (2026-07-28 `ttlMs`) is not asked for again until then, unless it was upgraded.
      const modern = MODERN_PROTOCOL_VERSIONS.includes(session.protocolVersion);
      if (!(modern && this.toolsListedBy === this.serverVersion && (this.toolsFreshUntil ?? 0) > this.now())) {
        const listed = await listTools(this.spec.id, session, { signal: deadline.signal, timeout: limitMs, now: this.now });
        this.tools = listed.tools;
        this.toolsFreshUntil = listed.freshUntil;
        this.toolsListedBy = this.serverVersion;
      }
      this.alive = true;
    } catch (err) {
      await this.close();
      // "Sign in" says all there is to say; "could not start" before it would only blur it. So does "speaks only …".
      if (err instanceof McpError && (isAuthFailure(err) || err instanceof UnsupportedProtocolError)) throw err;
      // A 401/403 after the handshake (tools/list), from either SDK, says to sign in as one at the handshake does.
      const auth = authMessage(this.spec, err);
      if (auth) throw auth;
      const reason = startFailure({ error: err, transportErrors, timedOut: deadline.signal.aborted, limitMs, stderr: this.stderrTail });
      const Type = deadline.signal.aborted ? StartTimeoutError : McpError;
      throw new Type(this.spec.id, `could not start: ${reason}`, { cause: err });
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Over Streamable HTTP, 2026-07-28 first: its `server/discover` is one request, which a 2025 server refuses without
   * opening a session; then the 2025 versions. Over stdio and SSE, the 2025 versions first (probing a stdio server
   * would cost a second process), then 2026-07-28 when the server refuses them and offers it. A restart goes
   * straight to the version the server spoke last time, and to the sequence above only if that fails.
   */
  private async connectNewestFirst(limitMs: number, signal: AbortSignal, keepError: (err: unknown) => void): Promise<McpSession> {
    const before = this.protocolVersion;
    const modernBefore = MODERN_PROTOCOL_VERSIONS.includes(before);
    if (modernBefore || (this.spec.transport === 'http' && !before)) {
      try {
        return await this.connectModern(modernBefore ? before : MODERN_PROTOCOL_VERSIONS[0]!, limitMs, signal, keepError, true);
      } catch (err) {
        if (signal.aborted || this.stopped) throw err;
        // The server wants a sign-in whatever protocol is tried: say so, instead of falling back to 2025 and its 400.
        if (isAuthFailure(err)) throw authMessage(this.spec, err) ?? err;
        await this.client?.close().catch(() => undefined);
      }
    }
    return this.connectLegacy(limitMs, signal, keepError).catch(async (err: unknown) => {
      // A server that speaks only the 2026 protocol gets the client that speaks it.
      const modern = err instanceof UnsupportedProtocolError ? modernVersionIn(err.offered) : undefined;
      if (!modern) throw err;
      await this.client?.close().catch(() => undefined);
      return this.connectModern(modern, limitMs, signal, keepError, true);
    });
  }

  /** Connects with the SDK v1 client (protocol 2025-11-25 and older): each transport in turn; throws the last failure. */
  private async connectLegacy(limitMs: number, signal: AbortSignal, keepError: (err: unknown) => void): Promise<McpSession> {
    const remote = this.spec.transport === 'http' || this.spec.transport === 'sse';
    const [sdk, http] = await Promise.all([clientSdk(), remote ? httpClientSdk() : undefined]);
    const attempts = this.transportAttempts(sdk, http);
    let socketRetried = false;
    for (let i = 0; i < attempts.length; i++) {
      const validators = new LazyOutputValidators(sdkSchemaValidator);
      const client = this.newClient(sdk, validators, keepError);
      const transport = attempts[i]!();
      this.client = client;
      this.pidOfSession = () => {
        const pid = (transport as { pid?: unknown }).pid;
        return typeof pid === 'number' ? pid : null;
      };
      let agreed = '';
      const setVersion = transport.setProtocolVersion?.bind(transport);
      transport.setProtocolVersion = (version) => {
        agreed = version;
        setVersion?.(version);
      };
      try {
        // The SDK bounds only the initialize request; opening the transport (an SSE stream that never names its
        // endpoint, an OAuth refresh) is bounded here, by the same deadline.
        const connecting = client.connect(transport, { timeout: limitMs, signal });
        // The schema checker loads while the server starts (spawned just now), not between its list and a first call.
        validators.warm();
        await untilAborted(connecting, signal);
        return legacySession(client, agreed, validators);
      } catch (err) {
        if (signal.aborted || this.stopped || isAuthFailure(err)) throw authMessage(this.spec, err) ?? err;
        const offered = offeredVersions(err);
        // A server that refused our protocol versions would refuse them over SSE too: say so, rather than fall back.
        if (offered) throw new UnsupportedProtocolError(this.spec.id, offered, { cause: err });
        await client.close().catch(() => undefined);
        // A restarted server leaves kept-alive sockets that fail the first request; initialize is safe to send again.
        if (!socketRetried && isBrokenSocket(err)) {
          socketRetried = true;
          i--;
          continue;
        }
        // Streamable HTTP first; a server that only speaks the older SSE transport gets a second try.
        if (i === attempts.length - 1) throw err;
      }
    }
    throw new McpError(this.spec.id, 'has no transport to try');
  }

  /** Connects with the SDK v2 client pinned to `version` (protocol 2026-07-28), over stdio or Streamable HTTP. */
  private async connectModern(version: string, limitMs: number, signal: AbortSignal, keepError: (err: unknown) => void, signIn: boolean): Promise<McpSession> {
    const { spec } = this;
    const target: ModernTarget =
      spec.transport === 'http' || spec.transport === 'sse'
        ? { kind: 'http', url: new URL(spec.url!), headers: spec.headers ?? {}, ...(signIn ? this.signIn() : {}) }
        : { kind: 'stdio', command: spec.command, args: spec.args, cwd: spec.cwd, env: { ...baseServerEnv(), ...spec.env }, maxBufferSize: MAX_STDIO_MESSAGE_BYTES, onStderr: (chunk) => this.keepStderr(chunk) };
    const handlers = {
      roots: () => this.roots.map(({ uri, name }) => ({ uri, name })),
      elicit: (params: unknown, elicitSignal: AbortSignal) => this.answerElicitation(params as ElicitRequest['params'], elicitSignal),
      onError: keepError,
      onClient: (client: { close(): Promise<void> }, pid: () => number | null) => {
        this.client = client;
        this.pidOfSession = pid;
      },
      onClose: (client: unknown) => {
        if (this.client === client) this.alive = false;
      },
    };
    return untilAborted(connectModern(target, version, handlers, { timeout: limitMs, signal }), signal);
  }

  /** Asks the person what the server asked (elicitation), with the clocks of this server's calls stopped meanwhile. */
  private answerElicitation(params: ElicitRequest['params'], signal: AbortSignal): Promise<ElicitResult> {
    return this.elicit ? this.whilePersonAsked(() => answerElicitation(this.spec.id, params, this.elicit, signal)) : answerElicitation(this.spec.id, params, undefined, signal);
  }

  private keepStderr(chunk: Buffer): void {
    this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-STDERR_TAIL_CHARS);
  }

  private newClient({ Client }: ClientSdk, jsonSchemaValidator: LazyOutputValidators, onTransportError: (err: unknown) => void): Client {
    const capabilities = { roots: { listChanged: false }, elicitation: { form: { applyDefaults: true }, url: {} } };
    const client = new Client({ name: 'cortex-r', version: VERSION }, { capabilities, jsonSchemaValidator });
    client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: this.roots.map(({ uri, name }) => ({ uri, name })) }));
    client.setRequestHandler(ElicitRequestSchema, (request, extra) => this.answerElicitation(request.params, extra.signal));
    client.onerror = onTransportError;
    client.onclose = () => {
      if (this.client === client) this.alive = false;
    };
    return client;
  }

  /** OAuth for a remote server: a token given in the entry's headers is the user's choice; else OAuth when it asks. */
  private signIn(): { authProvider?: OAuthClientProvider } {
    // One provider per start, shared by every attempt: a token one attempt obtained serves the next.
    if (this.provider === undefined) this.provider = this.oauthStore && !hasAuthorizationHeader(this.spec) ? oauthProviderFor(this.spec, this.oauthStore) : null;
    return this.provider ? { authProvider: this.provider } : {};
  }

  /** Transports to try in order: one for stdio and sse, Streamable HTTP then SSE for http. */
  private transportAttempts({ StdioClientTransport }: ClientSdk, http: HttpClientSdk | undefined): Array<() => Transport> {
    const { spec } = this;
    if (http) {
      const { SSEClientTransport, StreamableHTTPClientTransport } = http;
      const url = new URL(spec.url!);
      const requestInit = { headers: spec.headers ?? {} };
      const auth = this.signIn();
      const sse = () => new SSEClientTransport(url, { requestInit, eventSourceInit: { fetch: withHeaders(spec.headers ?? {}) }, ...auth });
      return spec.transport === 'sse' ? [sse] : [() => new StreamableHTTPClientTransport(url, { requestInit, ...auth }), sse];
    }
    return [
      () => {
        const transport = new StdioClientTransport({
          command: spec.command,
          args: spec.args,
          cwd: spec.cwd,
          // The minimal base and the server's own configured env, nothing else (server-env.ts).
          env: { ...baseServerEnv(), ...spec.env },
          stderr: 'pipe',
          maxBufferSize: MAX_STDIO_MESSAGE_BYTES,
        });
        transport.stderr?.on('data', (chunk: Buffer) => this.keepStderr(chunk));
        return transport;
      },
    ];
  }

  /**
   * Calls a tool; throws McpError if the connection is down or the call times out. A progressToken is always sent:
   * each progress notification restarts the `timeoutMs` wait, up to `maxTotalTimeoutMs` in all.
   */
  async call(
    name: string,
    args: Record<string, unknown>,
    options: { timeoutMs: number; maxTotalTimeoutMs: number; signal?: AbortSignal; onProgress?: (progress: ToolProgress) => void; onWaitingForUser?: () => () => void; meta?: Record<string, string> },
  ): Promise<ToolResult> {
    const session = this.session;
    if (!session || !this.alive) throw new McpError(this.spec.id, 'not running');
    const maxTotalTimeoutMs = Math.max(options.timeoutMs, options.maxTotalTimeoutMs);
    // Our own clock, not the SDK's, times the call: the SDK's cannot be stopped while the server waits for a person.
    const clock = new CallClock(options.timeoutMs, maxTotalTimeoutMs, options.signal);
    const pause = () => {
      const resumeClock = clock.pause();
      const resumeCaller = options.onWaitingForUser?.();
      return () => {
        resumeCaller?.();
        resumeClock();
      };
    };
    this.callsInFlight.add(pause);
    try {
      const listed = this.tools.find((t) => t.remoteName === name);
      const res = await session.callTool({ name, arguments: args, ...(options.meta ? { _meta: options.meta } : {}) }, {
        timeout: sdkBackstopMs(maxTotalTimeoutMs),
        onprogress: ({ progress, total, message }) => {
          clock.progress();
          try {
            options.onProgress?.({ progress, ...(total !== undefined ? { total } : {}), ...(message ? { message } : {}) });
          } catch {
            // A failing display callback must not fail the call.
          }
        },
        signal: clock.signal,
      }, listed && definitionOf(listed));
      return res as ToolResult;
    } catch (err) {
      if (/maximum total timeout/i.test(errorMessage(err))) {
        throw new McpError(this.spec.id, `tool ${name} timed out: still working after ${maxTotalTimeoutMs} ms, the longest a call may take even while it reports progress`, { cause: err });
      }
      if (err instanceof UnusableOutputSchemaError) throw new McpError(this.spec.id, `tool ${name}: ${err.message}`, { cause: err });
      // The SDK reports a result that breaks the protocol as a many-line schema dump; the model gets one line.
      const malformed = malformedResultMessage(err);
      if (malformed === undefined) throw err;
      throw new McpError(this.spec.id, `tool ${name}: ${malformed}`, { cause: err });
    } finally {
      this.callsInFlight.delete(pause);
      clock.dispose();
    }
  }

  /**
   * Runs `ask` (the server asked the person something) with the clocks of this server's calls in flight stopped:
   * the server is waiting for the person, not working. Each call's own clock and its caller's (onWaitingForUser).
   */
  private async whilePersonAsked<T>(ask: () => Promise<T>): Promise<T> {
    const resumes = [...this.callsInFlight].map((pause) => pause());
    try {
      return await ask();
    } finally {
      for (const resume of resumes) resume();
    }
  }

  /** True when the server said at initialize that it offers resources. */
  get offersResources(): boolean {
    return this.alive && Boolean(this.session?.getServerCapabilities()?.resources);
  }

  /** Reads one resource (resources/read); throws McpError if the connection is down, the SDK's error otherwise. */
  async readResource(uri: string, options: { timeoutMs: number; signal?: AbortSignal }): Promise<ResourceContents[]> {
    if (!this.session || !this.alive) throw new McpError(this.spec.id, 'not running');
    const res = await this.session.readResource({ uri }, { timeout: options.timeoutMs, ...(options.signal ? { signal: options.signal } : {}) });
    return res.contents as ResourceContents[];
  }

  /** The server's prompts (prompts/list, first page), or none when it offers none. */
  async listPrompts(options: { timeoutMs: number }): Promise<PromptInfo[]> {
    if (!this.session || !this.alive || !this.session.getServerCapabilities()?.prompts) return [];
    const res = await this.session.listPrompts({ timeout: options.timeoutMs });
    return res.prompts.map((p) => ({ server: this.spec.id, name: p.name, description: p.description ?? '', arguments: (p.arguments ?? []).map((a) => ({ name: a.name, required: Boolean(a.required) })) }));
  }

  /** One prompt's messages as text (prompts/get); other content is named by its type. */
  async getPrompt(name: string, args: Record<string, string>, options: { timeoutMs: number }): Promise<string> {
    if (!this.session || !this.alive) throw new McpError(this.spec.id, 'not running');
    const res = await this.session.getPrompt({ name, arguments: args }, { timeout: options.timeoutMs });
    return res.messages.map((m) => (m.content.type === 'text' ? m.content.text : `[${m.content.type}]`)).join('\n\n');
  }

  /** The server's process id while it runs (stdio only; used by tests and diagnostics). */
  get pid(): number | null {
    return this.client ? this.pidOfSession() : null;
  }

  /** Closes the connection for good: a start in progress ends now rather than at its deadline. */
  async shutdown(): Promise<void> {
    this.stopped = true;
    await this.close();
  }

  async close(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.session = undefined;
    this.alive = false;
    if (client) await client.close().catch(() => undefined);
  }
}

function describeVersion(info: { name?: string; version?: string } | undefined): string {
  return info ? `${info.name ?? '?'}@${info.version ?? '?'}` : '';
}

/** The SSE GET stream is opened by eventsource, which needs the headers passed through its fetch. */
function withHeaders(headers: Record<string, string>): typeof fetch {
  return (input, init) => fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), ...headers } });
}

// One MCP server over stdio, Streamable HTTP or SSE: start within a deadline, list tools, call, notice when it dies.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ElicitRequestSchema, ListRootsRequestSchema, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { DEFAULT_SERVER_START_TIMEOUT_MS } from '../config/mcp-entries.js';
import { baseServerEnv } from '../config/server-env.js';
import type { ServerSpec } from '../config/server-spec.js';
import { McpError, errorMessage } from '../errors.js';
import { authMessage, hasAuthorizationHeader, isAuthFailure, isBrokenSocket } from './call-failure.js';
import { CallClock, sdkBackstopMs } from './call-clock.js';
import { clientSdk, type ClientSdk } from './client-sdk.js';
import { answerElicitation, type Elicit } from './elicitation.js';
import { oauthProviderFor } from './oauth/provider.js';
import type { OAuthStore } from './oauth/store.js';
import { malformedResultMessage } from './malformed-result-message.js';
import type { RootFolder } from './roots.js';
import { startFailure } from './start-failure.js';
import type { PromptInfo, ResourceContents, ToolInfo, ToolProgress, ToolResult } from './types.js';

/** Pages of tools/list followed before we stop (a server paging forever would hang start-up). */
const MAX_TOOL_PAGES = 50;
/** A server listing more tools than this is refused: no model can use them, and the prompt would drown. */
export const MAX_TOOLS_PER_SERVER = 1_000;
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
  private client: Client | undefined;
  private transport: Transport | undefined;
  private stderrTail = '';
  tools: ToolInfo[] = [];
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
    const limitMs = this.spec.startTimeoutMs ?? DEFAULT_SERVER_START_TIMEOUT_MS;
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), limitMs);
    const transportErrors: unknown[] = [];
    try {
      const sdk = await clientSdk();
      const attempts = this.transportAttempts(sdk);
      let socketRetried = false;
      for (let i = 0; i < attempts.length; i++) {
        const client = this.newClient(sdk, (err) => {
          if (transportErrors.length < MAX_TRANSPORT_ERRORS_KEPT) transportErrors.push(err);
        });
        const transport = attempts[i]!();
        this.client = client;
        this.transport = transport;
        try {
          await client.connect(transport, { timeout: limitMs, signal: deadline.signal });
          break;
        } catch (err) {
          if (deadline.signal.aborted || this.stopped || isAuthFailure(err)) throw authMessage(this.spec, err) ?? err;
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
      const client = this.client!;
      this.serverVersion = describeVersion(client.getServerVersion());
      this.instructions = (client.getInstructions() ?? '').slice(0, MAX_INSTRUCTIONS_CHARS);
      this.tools = await this.listTools(client, deadline.signal, limitMs);
      this.alive = true;
    } catch (err) {
      await this.close();
      // "Sign in" says all there is to say; "could not start" before it would only blur it.
      if (err instanceof McpError && isAuthFailure(err)) throw err;
      const reason = startFailure({ error: err, transportErrors, timedOut: deadline.signal.aborted, limitMs, stderr: this.stderrTail });
      const Type = deadline.signal.aborted ? StartTimeoutError : McpError;
      throw new Type(this.spec.id, `could not start: ${reason}`, { cause: err });
    } finally {
      clearTimeout(timer);
    }
  }

  private newClient({ Client }: ClientSdk, onTransportError: (err: unknown) => void): Client {
    const client = new Client({ name: 'cortex-r', version: '0.1.0' }, { capabilities: { roots: { listChanged: false }, elicitation: { form: { applyDefaults: true }, url: {} } } });
    client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: this.roots.map(({ uri, name }) => ({ uri, name })) }));
    client.setRequestHandler(ElicitRequestSchema, (request, extra) =>
      this.elicit
        ? this.whilePersonAsked(() => answerElicitation(this.spec.id, request.params, this.elicit, extra.signal))
        : answerElicitation(this.spec.id, request.params, undefined, extra.signal));
    client.onerror = onTransportError;
    client.onclose = () => {
      if (this.client === client) this.alive = false;
    };
    return client;
  }

  /** Transports to try in order: one for stdio and sse, Streamable HTTP then SSE for http. */
  private transportAttempts({ SSEClientTransport, StdioClientTransport, StreamableHTTPClientTransport }: ClientSdk): Array<() => Transport> {
    const { spec } = this;
    if (spec.transport === 'http' || spec.transport === 'sse') {
      const url = new URL(spec.url!);
      const requestInit = { headers: spec.headers ?? {} };
      // A token given in the entry's headers is the user's choice; otherwise OAuth is used when the server asks for it.
      const authProvider = this.oauthStore && !hasAuthorizationHeader(spec) ? oauthProviderFor(spec, this.oauthStore) : undefined;
      const auth = authProvider ? { authProvider } : {};
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
        transport.stderr?.on('data', (chunk: Buffer) => {
          this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-STDERR_TAIL_CHARS);
        });
        return transport;
      },
    ];
  }

  private async listTools(client: Client, signal: AbortSignal, timeout: number): Promise<ToolInfo[]> {
    if (!client.getServerCapabilities()?.tools) return [];
    const tools: ToolInfo[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_TOOL_PAGES; page++) {
      const res = await client.listTools(cursor ? { cursor } : undefined, { timeout, signal });
      for (const t of res.tools) {
        if (isTaskOnly(t)) continue;
        if (tools.length >= MAX_TOOLS_PER_SERVER) throw new Error(`lists more than ${MAX_TOOLS_PER_SERVER} tools`);
        tools.push({
          server: this.spec.id,
          name: t.name,
          remoteName: t.name,
          description: t.description ?? '',
          inputSchema: t.inputSchema as Record<string, unknown>,
          ...(t.outputSchema ? { outputSchema: t.outputSchema as Record<string, unknown> } : {}),
          ...(t.annotations ? { annotations: t.annotations } : {}),
          ...(t._meta ? { meta: t._meta } : {}),
        });
      }
      cursor = res.nextCursor;
      if (!cursor) break;
    }
    return tools;
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
    if (!this.client || !this.alive) throw new McpError(this.spec.id, 'not running');
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
      const res = await this.client.callTool({ name, arguments: args, ...(options.meta ? { _meta: options.meta } : {}) }, undefined, {
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
      });
      return res as ToolResult;
    } catch (err) {
      if (/maximum total timeout/i.test(errorMessage(err))) {
        throw new McpError(this.spec.id, `tool ${name} timed out: still working after ${maxTotalTimeoutMs} ms, the longest a call may take even while it reports progress`, { cause: err });
      }
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
    return this.alive && Boolean(this.client?.getServerCapabilities()?.resources);
  }

  /** Reads one resource (resources/read); throws McpError if the connection is down, the SDK's error otherwise. */
  async readResource(uri: string, options: { timeoutMs: number; signal?: AbortSignal }): Promise<ResourceContents[]> {
    if (!this.client || !this.alive) throw new McpError(this.spec.id, 'not running');
    const res = await this.client.readResource({ uri }, { timeout: options.timeoutMs, ...(options.signal ? { signal: options.signal } : {}) });
    return res.contents as ResourceContents[];
  }

  /** The server's prompts (prompts/list, first page), or none when it offers none. */
  async listPrompts(options: { timeoutMs: number }): Promise<PromptInfo[]> {
    if (!this.client || !this.alive || !this.client.getServerCapabilities()?.prompts) return [];
    const res = await this.client.listPrompts(undefined, { timeout: options.timeoutMs });
    return res.prompts.map((p) => ({ server: this.spec.id, name: p.name, description: p.description ?? '', arguments: (p.arguments ?? []).map((a) => ({ name: a.name, required: Boolean(a.required) })) }));
  }

  /** One prompt's messages as text (prompts/get); other content is named by its type. */
  async getPrompt(name: string, args: Record<string, string>, options: { timeoutMs: number }): Promise<string> {
    if (!this.client || !this.alive) throw new McpError(this.spec.id, 'not running');
    const res = await this.client.getPrompt({ name, arguments: args }, { timeout: options.timeoutMs });
    return res.messages.map((m) => (m.content.type === 'text' ? m.content.text : `[${m.content.type}]`)).join('\n\n');
  }

  /** The server's process id while it runs (stdio only; used by tests and diagnostics). */
  get pid(): number | null {
    const pid = (this.transport as { pid?: unknown } | undefined)?.pid;
    return typeof pid === 'number' ? pid : null;
  }

  /** Closes the connection for good: a start in progress ends now rather than at its deadline. */
  async shutdown(): Promise<void> {
    this.stopped = true;
    await this.close();
  }

  async close(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.transport = undefined;
    this.alive = false;
    if (client) await client.close().catch(() => undefined);
  }
}

/** Tools that can only run as MCP tasks (2025-11-25 `execution.taskSupport: "required"`): we call tools directly, so they would always fail. */
function isTaskOnly(tool: Tool): boolean {
  const execution = (tool as { execution?: { taskSupport?: string } }).execution;
  return execution?.taskSupport === 'required';
}

function describeVersion(info: { name?: string; version?: string } | undefined): string {
  return info ? `${info.name ?? '?'}@${info.version ?? '?'}` : '';
}

/** The SSE GET stream is opened by eventsource, which needs the headers passed through its fetch. */
function withHeaders(headers: Record<string, string>): typeof fetch {
  return (input, init) => fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), ...headers } });
}

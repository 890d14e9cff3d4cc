// Protocol 2026-07-28 through the SDK v2 client, over stdio or Streamable HTTP (see ServerConnection.connectNewestFirst).
import type { Client as ModernClient } from '@modelcontextprotocol/client';
import type { StdioClientTransport as ModernStdioTransport } from '@modelcontextprotocol/client/stdio';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { McpSession, SessionTool } from './mcp-session.js';
import { TASKS_EXTENSION_ID, TaskError, followTask, taskIn, taskResponseAsError, type AnswerInput, type TaskRequester } from './modern-task-call.js';
import { VERSION } from '../version.js';

/** The 2026 protocol versions the SDK v2 client speaks, newest first. */
export const MODERN_PROTOCOL_VERSIONS: readonly string[] = ['2026-07-28'];

/** The newest version both the server offered and we speak in the 2026 era, or undefined. */
export function modernVersionIn(offered: readonly string[]): string | undefined {
  return MODERN_PROTOCOL_VERSIONS.find((v) => offered.includes(v));
}

/** What the server may ask of us during a request: roots, and the person (elicitation, multi-round-trip). */
export interface ModernHandlers {
  roots(): Array<{ uri: string; name?: string }>;
  elicit(params: unknown, signal: AbortSignal): Promise<Record<string, unknown>>;
  onError(err: unknown): void;
  /** Called with the client as soon as it exists (before connecting), so a start cut short can close it. */
  onClient(client: { close(): Promise<void> }, pid: () => number | null): void;
  /** The connection of `client` closed. */
  onClose(client: unknown): void;
}

/** How to reach the server: a process to spawn, or a URL with headers. */
export type ModernTarget =
  | { kind: 'stdio'; command: string; args: string[]; cwd?: string; env: Record<string, string>; maxBufferSize: number; onStderr(chunk: Buffer): void }
  | { kind: 'http'; url: URL; headers: Record<string, string>; authProvider?: OAuthClientProvider };

let loading: Promise<[typeof import('@modelcontextprotocol/client'), typeof import('@modelcontextprotocol/client/stdio')]> | undefined;

/**
 * Connects with the SDK v2 client pinned to `version`: its `server/discover` must offer it, else this throws (a
 * 2025 server refuses the request without opening a session). The per-request `_meta`, the HTTP headers and
 * input_required rounds (answered through `handlers.elicit`, then sent again with the answers and the server's
 * requestState) are the SDK's. Throws what the SDK throws.
 */
export async function connectModern(target: ModernTarget, version: string, handlers: ModernHandlers, options: { timeout: number; signal: AbortSignal }): Promise<McpSession> {
  loading ??= Promise.all([import('@modelcontextprotocol/client'), import('@modelcontextprotocol/client/stdio')]);
  const [sdk, stdio] = await loading;
  // A tools/call answered with a task (the tasks extension) reaches callTool as an error holding the task.
  const TaskAwareClient = class extends sdk.Client {
    protected override _onresponse(response: Parameters<ModernClient['_onresponse']>[0]): void {
      super._onresponse((taskResponseAsError(response as never) ?? response) as typeof response);
    }
  };
  const client = new TaskAwareClient(
    { name: 'cortex-r', version: VERSION },
    {
      capabilities: { roots: { listChanged: false }, elicitation: { form: { applyDefaults: true }, url: {} }, extensions: { [TASKS_EXTENSION_ID]: {} } },
      versionNegotiation: { mode: { pin: version } },
    },
  );
  client.setRequestHandler('roots/list', () => ({ roots: handlers.roots() }));
  client.setRequestHandler('elicitation/create', (request, ctx) => handlers.elicit(request.params, ctx.mcpReq.signal) as never);
  client.onerror = handlers.onError;
  client.onclose = () => handlers.onClose(client);
  let stdioTransport: ModernStdioTransport | undefined;
  if (target.kind === 'stdio') {
    // A subclass: the SDK probes the SDK's own stdio transport on a second, throw-away process, a subclass in place.
    const InPlace = class extends stdio.StdioClientTransport {};
    stdioTransport = new InPlace({ command: target.command, args: target.args, cwd: target.cwd, env: target.env, stderr: 'pipe', maxBufferSize: target.maxBufferSize } as ConstructorParameters<typeof stdio.StdioClientTransport>[0]);
    stdioTransport.stderr?.on('data', target.onStderr);
  }
  // Our sign-in provider is written to SDK v1's interface, which v2's keeps (its extra methods are optional).
  const transport =
    stdioTransport ??
    (target.kind === 'http'
      ? new sdk.StreamableHTTPClientTransport(target.url, { requestInit: { headers: target.headers }, ...(target.authProvider ? { authProvider: target.authProvider as never } : {}) })
      : undefined)!;
  handlers.onClient(client, () => stdioTransport?.pid ?? null);
  await client.connect(transport, options);
  // What a task asks of us while it runs, answered as the same requests outside a task would be.
  const answer: AnswerInput = (method, params, signal) => {
    if (method === 'elicitation/create') return handlers.elicit(params, signal);
    if (method === 'roots/list') return Promise.resolve({ roots: handlers.roots() });
    return undefined;
  };
  return modernSession(client, answer, sdk.isCallToolResult);
}

function modernSession(client: ModernClient, answer: AnswerInput, isCallToolResult: (value: unknown) => boolean): McpSession {
  return {
    protocolVersion: client.getNegotiatedProtocolVersion() ?? '',
    getServerVersion: () => client.getServerVersion(),
    getInstructions: () => client.getInstructions(),
    getServerCapabilities: () => client.getServerCapabilities(),
    // One page at a time (our own loop bounds them); the SDK keeps the list for callTool's output-schema checks.
    listTools: async (params, options) => {
      const res = await client.listTools(params, options);
      const { ttlMs } = res as { ttlMs?: unknown };
      return { tools: res.tools as SessionTool[], ...(res.nextCursor ? { nextCursor: res.nextCursor } : {}), ...(typeof ttlMs === 'number' ? { ttlMs } : {}) };
    },
    // The definition as listed, so the SDK mirrors `x-mcp-header` parameters into `Mcp-Param-*` headers (SEP-2243).
    // A call the server turns into a task (tasks extension) is followed to its result, which is returned as any other.
    callTool: async (params, options, definition) => {
      try {
        return await client.callTool(params, { ...options, ...(definition ? { toolDefinition: definition as never } : {}) });
      } catch (err) {
        const task = taskIn(err);
        if (!task) throw err;
        const result = await followTask(client as unknown as TaskRequester, task, options, answer);
        if (!isCallToolResult(result)) throw new TaskError('not-a-tool-result', task.taskId);
        return result;
      }
    },
    readResource: (params, options) => client.readResource(params, options),
    listPrompts: (options) => client.listPrompts(undefined, options),
    getPrompt: (params, options) => client.getPrompt(params, options) as ReturnType<McpSession['getPrompt']>,
    close: () => client.close(),
  };
}

// A real SDK MCP server over Streamable HTTP, in this process, that a test can restart (losing every session) and
// whose slow tools wait for the test's signal.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { ServerSpec } from '../../src/config/server-spec.js';
import { PROJECT_ROOT } from '../../src/paths.js';

/** Interval between two progress notifications of `wait_with_progress`. */
export const PROGRESS_INTERVAL_MS = 50;

export interface HttpFixture {
  url: string;
  /** Calls of each tool that reached a server, across restarts. */
  calls: Map<string, number>;
  /** Sessions the server has created, across restarts. */
  sessions: number;
  /** Progress notifications sent so far. */
  progressSent: number;
  /** Lets the tools waiting now answer (later calls wait again). */
  release(): void;
  /** Closes the server and its connections and listens again on the same port, as a new process would: no session survives. */
  restart(): Promise<void>;
  /** Closes the server and its connections, keeping its port for up(): a server that went down. */
  down(): Promise<void>;
  /** Listens again on the same port after down(), as a new process would: no session survives. */
  up(): Promise<void>;
  /** Forgets every session while keeping the listener and its connections (a server restarted behind a proxy). */
  forgetSessions(): Promise<void>;
  close(): Promise<void>;
}

export interface HttpFixtureOptions {
  /** What an unknown session id gets: 404 (the spec) or 400 "No valid session ID" (the SDK's examples). */
  unknownSession?: 404 | 400;
  /** Number of extra generated tools `tool_0`…, for catalogue sizes. */
  extraTools?: number;
}

export function httpSpec(id: string, url: string, extra: Partial<ServerSpec> = {}): ServerSpec {
  return { id, transport: 'http', url, command: '', args: [], cwd: PROJECT_ROOT, env: {}, description: `${id} over HTTP`, capabilities: [], ...extra };
}

function readBody(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    let text = '';
    req.on('data', (d: Buffer) => (text += d.toString('utf8')));
    req.on('end', () => resolve(text ? JSON.parse(text) : undefined));
    req.on('error', reject);
  });
}

export async function startHttpFixture(options: HttpFixtureOptions = {}): Promise<HttpFixture> {
  let waiting: Array<() => void> = [];
  let released = false;
  const whenReleased = () => (released ? Promise.resolve() : new Promise<void>((resolve) => waiting.push(resolve)));
  const text = (value: unknown) => ({ content: [{ type: 'text' as const, text: JSON.stringify({ result: value }) }] });
  const count = (name: string) => fixture.calls.set(name, (fixture.calls.get(name) ?? 0) + 1);

  function buildServer(): McpServer {
    const server = new McpServer({ name: 'http-fixture', version: '1.0.0' });
    server.registerTool('echo', { description: 'Echoes a message', inputSchema: { message: z.string() }, annotations: { readOnlyHint: true } }, ({ message }) => {
      count('echo');
      return text(message);
    });
    server.registerTool('append', { description: 'Appends to a list (changes state)', inputSchema: { item: z.string() } }, ({ item }) => {
      count('append');
      return text(`appended ${item}`);
    });
    server.registerTool('wait_with_progress', { description: 'Reports progress until released', inputSchema: {} }, async (_args, extra) => {
      count('wait_with_progress');
      const token = extra._meta?.progressToken;
      let step = 0;
      const ticker = setInterval(() => {
        if (token === undefined) return;
        fixture.progressSent++;
        void extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: ++step, message: `step ${step}` } });
      }, PROGRESS_INTERVAL_MS);
      try {
        await whenReleased();
      } finally {
        clearInterval(ticker);
      }
      return text('done');
    });
    server.registerTool('wait_silently', { description: 'Waits until released, saying nothing', inputSchema: {} }, async () => {
      count('wait_silently');
      await whenReleased();
      return text('done');
    });
    server.registerTool('ask_user', { description: 'Asks the person for their name and age', inputSchema: {} }, async () => {
      const answer = await server.server.elicitInput({
        message: 'Who are you?',
        requestedSchema: { type: 'object', properties: { name: { type: 'string', title: 'Name' }, age: { type: 'integer', minimum: 0 } }, required: ['name'] },
      });
      return text(answer);
    });
    server.registerTool('ask_visit', { description: 'Sends the person to a page', inputSchema: {} }, async () => {
      const answer = await server.server.elicitInput({ mode: 'url', message: 'Confirm the payment', url: 'https://pay.example.com/confirm?id=7', elicitationId: 'e-7' });
      return text(answer);
    });
    for (let i = 0; i < (options.extraTools ?? 0); i++) {
      server.registerTool(`tool_${i}`, { description: `Generated tool ${i}`, inputSchema: { x: z.number() } }, ({ x }) => text(x + i));
    }
    return server;
  }

  let transports = new Map<string, StreamableHTTPServerTransport>();
  const handler = async (req: IncomingMessage, res: ServerResponse) => {
    const body = req.method === 'POST' ? await readBody(req) : undefined;
    const sessionId = req.headers['mcp-session-id'];
    let transport = typeof sessionId === 'string' ? transports.get(sessionId) : undefined;
    if (!transport) {
      if (sessionId !== undefined || req.method !== 'POST' || !isInitializeRequest(body)) {
        const status = sessionId === undefined ? 400 : (options.unknownSession ?? 404);
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: status === 404 ? 'Session not found' : 'Bad Request: No valid session ID provided' }, id: null }));
        return;
      }
      const map = transports;
      const created: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          map.set(id, created);
          fixture.sessions++;
        },
      });
      transport = created;
      await buildServer().connect(transport);
    }
    await transport.handleRequest(req, res, body);
  };

  let http: Server = createServer((req, res) => void handler(req, res).catch(() => res.writeHead(500).end()));
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;

  async function stop(): Promise<void> {
    released = true;
    for (const resolve of waiting) resolve();
    waiting = [];
    await Promise.all([...transports.values()].map((t) => t.close().catch(() => undefined)));
    http.closeAllConnections();
    await new Promise<void>((resolve) => http.close(() => resolve()));
  }

  async function up(): Promise<void> {
    released = false;
    transports = new Map();
    http = createServer((req, res) => void handler(req, res).catch(() => res.writeHead(500).end()));
    await new Promise<void>((resolve) => http.listen(port, '127.0.0.1', resolve));
  }

  const fixture: HttpFixture = {
    url: `http://127.0.0.1:${port}/mcp`,
    calls: new Map(),
    sessions: 0,
    progressSent: 0,
    release() {
      for (const resolve of waiting) resolve();
      waiting = [];
    },
    async restart() {
      await stop();
      await up();
    },
    down: stop,
    up,
    async forgetSessions() {
      const old = transports;
      transports = new Map();
      await Promise.all([...old.values()].map((t) => t.close().catch(() => undefined)));
    },
    close: stop,
  };
  return fixture;
}

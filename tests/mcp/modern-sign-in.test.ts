// A server answering 401 says "sign in" (or "replace the token") the same way whichever SDK saw the 401 first: v2 (2026-07-28) or v1 (2025).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { McpServer as ModernServer, createMcpHandler } from '@modelcontextprotocol/server';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { MultiMcp } from '../../src/mcp/multi-mcp.js';
import { httpSpec } from './http-fixture.js';

/** Which requests the server refuses with 401: all of them, or only those after the handshake (tools/list). */
type Gate = 'everything' | 'after-handshake';
/** What the person reads, per kind of server. */
const SIGN_IN = 'MCP server "gated": answered 401 Unauthorized: sign in with `cortex servers login gated`';
const REPLACE_TOKEN = 'MCP server "gated": answered 401 Unauthorized: the token in its entry\'s headers was refused; replace it';

let http: Server | undefined;
let multi: MultiMcp | undefined;
/** The JSON-RPC requests the server was sent. */
let requests: string[] = [];
afterEach(async () => {
  await multi?.close();
  http?.closeAllConnections();
  http?.close();
  multi = http = undefined;
  requests = [];
});

/** Answers 401 with a bearer challenge, as a protected MCP server does. */
function refuse(res: ServerResponse): void {
  res.writeHead(401, { 'WWW-Authenticate': 'Bearer realm="mcp", error="invalid_token"' }).end();
}

async function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return chunks.length ? Buffer.concat(chunks) : undefined;
}

/** A real SDK v2 server speaking only 2026-07-28 behind `gate`. */
async function modernServer(gate: Gate): Promise<string> {
  const handler = createMcpHandler(() => new ModernServer({ name: 'gated-modern', version: '2.0.0' }, { capabilities: { tools: {} } }), { legacy: 'reject' });
  http = createServer(async (req, res) => {
    const body = await readBody(req);
    const method = body ? (JSON.parse(body.toString('utf8')) as { method?: string }).method : undefined;
    if (method) requests.push(method);
    if (gate === 'everything' || method !== 'server/discover') return refuse(res);
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers.set(k, v);
    const response = await handler.fetch(new Request(`http://${req.headers.host}${req.url}`, { method: req.method, headers, ...(body ? { body } : {}) }));
    res.writeHead(response.status, Object.fromEntries(response.headers)).end(Buffer.from(await response.arrayBuffer()));
  });
  return listen();
}

/** A real SDK v1 server speaking 2025-11-25 (stateless: a start may be tried twice) that lets the handshake through and refuses tools/list. */
async function legacyServer(): Promise<string> {
  http = createServer(async (req, res) => {
    const body = await readBody(req);
    const parsed = body ? (JSON.parse(body.toString('utf8')) as { method?: string }) : undefined;
    if (parsed?.method === 'tools/list') return refuse(res);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await new McpServer({ name: 'gated-legacy', version: '1.0.0' }, { capabilities: { tools: {} } }).connect(transport);
    await transport.handleRequest(req, res, parsed);
  });
  return listen();
}

async function listen(): Promise<string> {
  await new Promise<void>((resolve) => http!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(http!.address() as AddressInfo).port}/mcp`;
}

const errorOf = async (url: string, headers?: Record<string, string>) => {
  multi = await MultiMcp.start([httpSpec('gated', url, headers ? { headers } : {})]);
  return multi.statuses()[0]!;
};

describe('a server that answers 401', () => {
  it.each<[string, () => Promise<string>]>([
    ['a 2026-07-28 server refusing every request (the v2 client sees the 401 first)', () => modernServer('everything')],
    ['a 2026-07-28 server refusing tools/list after server/discover', () => modernServer('after-handshake')],
    ['a 2025-11-25 server refusing tools/list after initialize', () => legacyServer()],
  ])('%s tells the person to sign in with `cortex servers login`', async (_what, start) => {
    expect(await errorOf(await start())).toMatchObject({ state: 'failed', error: SIGN_IN });
  });

  it.each<[string, () => Promise<string>]>([
    ['a 2026-07-28 server', () => modernServer('after-handshake')],
    ['a 2025-11-25 server', () => legacyServer()],
  ])('%s refusing the token given in the entry says to replace it', async (_what, start) => {
    expect(await errorOf(await start(), { Authorization: 'Bearer expired' })).toMatchObject({ state: 'failed', error: REPLACE_TOKEN });
  });

  it('is not started a second time: the retry a crashed start gets would be refused alike', async () => {
    await errorOf(await modernServer('everything'));
    expect(requests).toEqual(['server/discover']);
  });
});

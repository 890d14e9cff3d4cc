// `cortex mcp --http`: the MCP server over Streamable HTTP at /mcp, both protocol eras through the SDK v2 handler,
// behind the same token, Host and Origin rules as `cortex serve` (src/serve/access-policy.ts).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { createMcpHandler, isLegacyRequest, type McpServerFactory } from '@modelcontextprotocol/server';
import { checkAccess, PREFLIGHT_HEADERS, type AccessPolicy } from '../access-policy.js';
import { ApiError } from '../api-error.js';
import { legacySessions } from './legacy-sessions.js';

/** The one path MCP is served on; anything else is 404. */
export const MCP_HTTP_PATH = '/mcp';

/** A running endpoint: its URL (with the path) and how to stop it. */
export interface McpHttpEndpoint {
  url: string;
  close(): Promise<void>;
}

/**
 * Listens on `host:port` (0 picks a free port) and serves MCP at /mcp: 2026-07-28 per request, 2025-era clients in a
 * session each (so they can be asked questions). Every request passes `checkAccess` first.
 * @throws the listen error (port in use, address not available)
 */
export async function startMcpHttp({ factory, host, port, policy, log }: { factory: McpServerFactory; host: string; port: number; policy: AccessPolicy; log: (line: string) => void }): Promise<McpHttpEndpoint> {
  const onerror = (err: Error) => log(`cortex mcp: ${err.message}`);
  const modern = createMcpHandler(factory, { legacy: 'reject', onerror });
  const legacy = legacySessions(factory, onerror);
  const fetch = async (request: Request) => ((await isLegacyRequest(request)) ? legacy.fetch(request) : modern.fetch(request));
  const server = createServer((req, res) => {
    serve(req, res, fetch, policy).catch((err: unknown) => {
      log(`cortex mcp: ${(err as Error).message}`);
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":{"code":"internal","message":"internal error"}}');
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${shown}:${address.port}${MCP_HTTP_PATH}`,
    close: async () => {
      // Stop taking requests first; then end the exchanges and sessions still open.
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await Promise.all([modern.close(), legacy.close()]);
      await stopped;
    },
  };
}

async function serve(req: IncomingMessage, res: ServerResponse, fetch: (request: Request) => Promise<Response>, policy: AccessPolicy): Promise<void> {
  const path = new URL(req.url ?? '/', 'http://x').pathname;
  let cors: Record<string, string>;
  try {
    cors = checkAccess(req, policy, { needsToken: req.method !== 'OPTIONS' });
    if (path !== MCP_HTTP_PATH) throw new ApiError(404, 'not_found', `MCP is served at ${MCP_HTTP_PATH}`);
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    res.writeHead(err.status, { 'content-type': 'application/json', ...err.headers }).end(JSON.stringify({ error: { code: err.code, message: err.message } }));
    return;
  }
  if (req.method === 'OPTIONS') {
    res.writeHead(204, { ...cors, ...PREFLIGHT_HEADERS, 'access-control-allow-headers': `${PREFLIGHT_HEADERS['access-control-allow-headers']}, mcp-protocol-version, mcp-method, mcp-name, mcp-session-id, last-event-id` }).end();
    return;
  }
  // The client hanging up cancels the exchange (and with it a question still running).
  const hangUp = new AbortController();
  res.once('close', () => hangUp.abort());
  const response = await fetch(toWebRequest(req, hangUp.signal));
  const headers: Record<string, string> = { ...cors };
  response.headers.forEach((value, name) => (headers[name] = value));
  res.writeHead(response.status, headers);
  if (!response.body) {
    res.end();
    return;
  }
  // Each chunk is written as it comes: an SSE stream's progress must reach the client before the answer.
  for await (const chunk of Readable.fromWeb(response.body as import('node:stream/web').ReadableStream<Uint8Array>)) {
    if (!res.write(chunk)) await new Promise<void>((resolve) => res.once('drain', resolve));
  }
  res.end();
}

function toWebRequest(req: IncomingMessage, signal: AbortSignal): Request {
  const headers = new Headers();
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD' && req.method !== 'DELETE';
  const init: RequestInit & { duplex?: 'half' } = { method: req.method ?? 'GET', headers, signal };
  if (hasBody) Object.assign(init, { body: Readable.toWeb(req) as ReadableStream, duplex: 'half' });
  return new Request(`http://${req.headers.host ?? 'localhost'}${req.url ?? '/'}`, init);
}

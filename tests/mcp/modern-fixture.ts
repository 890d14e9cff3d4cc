// A 2026-07-28 MCP server on SDK v2's web handler, served over node:http in this process, recording every request it gets.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMcpHandler, type McpServer } from '@modelcontextprotocol/server';

/** One JSON-RPC request as it arrived: its method, its headers (lower-case names) and its body. */
export interface SeenRequest {
  method: string;
  headers: Record<string, string>;
  body: { method?: string; params?: Record<string, unknown> };
}

export interface ModernFixture {
  url: string;
  /** Every POSTed request, in order. */
  seen: SeenRequest[];
  /** How many requests of `method` arrived. */
  count(method: string): number;
  close(): Promise<void>;
}

/** Serves `build()` (a fresh SDK v2 server per request, as the handler wants) at `/mcp`, speaking only 2026-07-28. */
export async function startModernFixture(build: () => McpServer): Promise<ModernFixture> {
  const handler = createMcpHandler(build, { legacy: 'reject' });
  const seen: SeenRequest[] = [];
  const http: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = chunks.length ? Buffer.concat(chunks) : undefined;
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v;
    if (req.method === 'POST' && body) {
      const parsed = JSON.parse(body.toString('utf8')) as SeenRequest['body'];
      seen.push({ method: parsed.method ?? '', headers, body: parsed });
    }
    const request = new Request(`http://${req.headers.host}${req.url}`, { method: req.method, headers: new Headers(headers), ...(body && req.method === 'POST' ? { body } : {}) });
    const response = await handler.fetch(request);
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.end(Buffer.from(await response.arrayBuffer()));
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
    seen,
    count: (method) => seen.filter((r) => r.method === method).length,
    async close() {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

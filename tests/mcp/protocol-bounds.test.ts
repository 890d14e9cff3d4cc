// Connecting is bounded and speaks what the server speaks: a server speaking only protocol 2026-07-28, one naming a future version, one whose SSE stream never opens.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerSpec } from '../../src/config/server-spec.js';
import type { Elicit } from '../../src/mcp/elicitation.js';
import { MultiMcp } from '../../src/mcp/multi-mcp.js';
import { ToolCache } from '../../src/mcp/tool-cache.js';
import { PROJECT_ROOT } from '../../src/paths.js';
import { httpSpec, startHttpFixture, type HttpFixture } from './http-fixture.js';

const MODERN_ONLY = join(PROJECT_ROOT, 'tests', 'fixtures', 'modern-only-server.mjs');
/** Deadline of the server whose stream never opens: room for the refused requests before it on a loaded machine. */
const SHORT_START_MS = 5_000;

/** What the person was asked, in order. */
const asked: Array<{ server: string; message: string; fields: string[] }> = [];
/** A person who answers every form with their name. */
const answerAs = (name: string): Elicit => async (request) => {
  asked.push({ server: request.server, message: request.message, fields: request.mode === 'form' ? Object.keys(request.fields) : [] });
  return { action: 'accept', content: { name } };
};

const stdioSpec = (id: string, args: string[]): ServerSpec => ({ id, command: process.execPath, args, cwd: PROJECT_ROOT, env: {}, description: id, capabilities: [] });

/** The modern-only fixture over Streamable HTTP in its own process; resolves with its port once it listens. */
function startModernHttp(children: ChildProcess[], ...flags: string[]): Promise<number> {
  const child = spawn(process.execPath, [MODERN_ONLY, '--http', '0', ...flags], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  return new Promise((resolve, reject) => {
    child.stdout!.once('data', (d: Buffer) => resolve(Number(d.toString().trim())));
    child.on('exit', (code) => reject(new Error(`modern-only server exited (${code})`)));
  });
}

/** A hand-written HTTP server: POST answers initialize with a version from the future; GET opens an SSE stream that never names its endpoint. */
async function startOddHttp(gets: { count: number }): Promise<Server> {
  const http = createServer((req, res) => {
    if (req.method === 'GET') {
      gets.count++;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(': open, but no endpoint event will ever come\n\n');
      return;
    }
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      const message = JSON.parse(body) as { id?: number; method: string };
      if (req.url === '/ancient' && message.method === 'initialize') {
        // The 2025 revisions' refusal: invalid params, naming the versions the server speaks.
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, error: { code: -32602, message: 'Unsupported protocol version', data: { supported: ['2023-01-01'], requested: '2025-11-25' } } }));
        return;
      }
      if (req.url === '/future' && message.method === 'initialize') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: { protocolVersion: '2099-01-01', capabilities: { tools: {} }, serverInfo: { name: 'future', version: '9' } } }));
        return;
      }
      res.writeHead(404).end('Not Found');
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return http;
}

describe('connecting to servers that refuse the 2025 protocol versions', () => {
  const children: ChildProcess[] = [];
  const gets = { count: 0 };
  let odd: Server;
  let multi: MultiMcp;
  let legacy: HttpFixture;

  beforeAll(async () => {
    const modernPort = await startModernHttp(children);
    const dualPort = await startModernHttp(children, '--dual');
    legacy = await startHttpFixture();
    odd = await startOddHttp(gets);
    const oddUrl = `http://127.0.0.1:${(odd.address() as AddressInfo).port}`;
    multi = await MultiMcp.start(
      [
        stdioSpec('modern-stdio', [MODERN_ONLY]),
        httpSpec('modern-http', `http://127.0.0.1:${modernPort}/mcp`),
        httpSpec('future', `${oddUrl}/future`),
        httpSpec('ancient', `${oddUrl}/ancient`),
        httpSpec('dual-http', `http://127.0.0.1:${dualPort}/mcp`),
        stdioSpec('dual-stdio', [MODERN_ONLY, '--dual']),
        httpSpec('legacy-http', legacy.url),
      ],
      { elicit: answerAs('Ada') },
    );
  });
  afterAll(async () => {
    await multi.close();
    await legacy.close();
    odd.closeAllConnections();
    odd.close();
    for (const child of children) child.kill();
  });

  const statusOf = (id: string) => multi.statuses().find((s) => s.id === id)!;

  it.each(['modern-stdio', 'modern-http'])('speaks 2026-07-28 with %s, which refuses the 2025 versions, and calls its tool', async (id) => {
    expect(statusOf(id)).toMatchObject({ state: 'ready', tools: ['add', 'greet', 'count_slowly'], protocolVersion: '2026-07-28' });
    const result = await multi.callTool(id, 'add', { a: 2, b: 3 });
    expect(result.content).toEqual([{ type: 'text', text: '5' }]);
  });

  it.each(['modern-stdio', 'modern-http'])('asks the person what %s needs (input_required) and calls again with the answer', async (id) => {
    const before = asked.length;
    const result = await multi.callTool(id, 'greet', {});
    expect(result.content).toEqual([{ type: 'text', text: 'Hello, Ada' }]);
    expect(asked.slice(before)).toEqual([{ server: id, message: 'What is your name?', fields: ['name'] }]);
  });

  it.each(['modern-stdio', 'modern-http'])('shows the progress %s reports on 2026-07-28, and cancels the call', async (id) => {
    const controller = new AbortController();
    const seen: string[] = [];
    const call = multi.callTool(id, 'count_slowly', {}, {
      signal: controller.signal,
      onProgress: ({ message }) => {
        seen.push(message ?? '');
        if (seen.length === 2) controller.abort();
      },
    });
    await expect(call).rejects.toThrow();
    expect(seen).toEqual(['step 1', 'step 2']);
    // The server is still there for the next call.
    expect((await multi.callTool(id, 'add', { a: 2, b: 2 })).content).toEqual([{ type: 'text', text: '4' }]);
  });

  it('speaks 2026-07-28 over Streamable HTTP with a server that speaks both eras, 2025-11-25 over stdio, and 2025-11-25 with a 2025 server', async () => {
    expect(statusOf('dual-http')).toMatchObject({ state: 'ready', protocolVersion: '2026-07-28' });
    expect(statusOf('dual-stdio')).toMatchObject({ state: 'ready', protocolVersion: '2025-11-25' });
    expect(statusOf('legacy-http')).toMatchObject({ state: 'ready', protocolVersion: '2025-11-25' });
    for (const id of ['dual-http', 'dual-stdio']) expect((await multi.callTool(id, 'add', { a: 20, b: 22 })).content).toEqual([{ type: 'text', text: '42' }]);
    // The 2026 probe opened no session on the 2025 server: only the 2025 handshake did.
    expect(legacy.sessions).toBe(1);
  });

  it('refuses a server that answers initialize with a version from the future, naming it', () => {
    expect(statusOf('future').error).toBe('MCP server "future": speaks only MCP protocol 2099-01-01, and Cortex-R speaks 2026-07-28, 2025-11-25, 2025-06-18, 2025-03-26 (and older)');
  });

  it('refuses a server that answers our version with the 2025 invalid-params refusal, naming what it speaks, without trying SSE', () => {
    expect(statusOf('ancient').error).toMatch(/^MCP server "ancient": speaks only MCP protocol 2023-01-01, and Cortex-R speaks 2026-07-28, /);
    // Nor did the server from the future get an SSE try.
    expect(gets.count).toBe(0);
  });

  it('gives up on an SSE stream that never names its endpoint at the start deadline, without a retry', async () => {
    // On its own, after the others: the attempts before the SSE stream must fit in the deadline whatever the load.
    const alone = await MultiMcp.start([httpSpec('no-endpoint', `http://127.0.0.1:${(odd.address() as AddressInfo).port}/mcp`, { startTimeoutMs: SHORT_START_MS })]);
    try {
      expect(alone.statuses()[0]!.error).toBe(`MCP server "no-endpoint": could not start: did not answer within ${SHORT_START_MS / 1000} s (raise its \`timeout\` if it installs slowly)`);
      // The 2026 probe and the 2025 POST were refused, the fall-back SSE stream opened once; the deadline ended it.
      expect(gets.count).toBe(1);
    } finally {
      await alone.close();
    }
  });
});

describe('restarting a server that speaks only 2026-07-28', () => {
  it('goes straight to 2026-07-28 on a restart, without the refused 2025 opening first', async () => {
    const starts = join(mkdtempSync(join(tmpdir(), 'cortex-starts-')), 'starts');
    const multi = await MultiMcp.start([{ ...stdioSpec('modern', [MODERN_ONLY]), env: { CORTEX_STARTS_FILE: starts } }]);
    try {
      // The first start: one process refused the 2025 opening, the next one speaks 2026-07-28.
      expect(readFileSync(starts, 'utf8')).toBe('start\nstart\n');
      process.kill(multi.pidOf('modern')!);
      expect((await multi.callTool('modern', 'add', { a: 1, b: 1 })).content).toEqual([{ type: 'text', text: '2' }]);
      expect(readFileSync(starts, 'utf8')).toBe('start\nstart\nstart\n');
    } finally {
      await multi.close();
    }
  });

  it('goes straight to 2026-07-28 in the next run too, from the tool cache', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cortex-starts-'));
    const spec = { ...stdioSpec('modern', [MODERN_ONLY]), env: { CORTEX_STARTS_FILE: join(dir, 'starts') } };
    const cacheFile = join(dir, 'mcp-tools.json');
    for (let run = 1; run <= 2; run++) {
      const multi = await MultiMcp.start([spec], { cache: await ToolCache.load(cacheFile) });
      expect(multi.statuses()[0]).toMatchObject({ state: 'ready', protocolVersion: '2026-07-28' });
      await multi.close();
    }
    // Two processes the first run (the refused 2025 opening, then 2026-07-28), one the second.
    expect(readFileSync(join(dir, 'starts'), 'utf8')).toBe('start\nstart\nstart\n');
  });
});

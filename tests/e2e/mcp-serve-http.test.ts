// `cortex mcp --http`: Streamable HTTP for both protocol revisions (SDK v2 and v1 clients), behind `cortex serve`'s
// token, Host and Origin rules, from the built CLI.
import { spawn, type ChildProcess } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttpTransport } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/paths.js';
import type { FakeLlmServer } from '../helpers/fake-ollama-server.js';
import { ollamaEnv, tempProject } from './ask-harness.js';
import { BOOKING_SERVER, startBookingLlm } from './booking-harness.js';

const TOKEN = 'mcp-http-test-token-0123456789abcdef';
const AUTH = { authorization: `Bearer ${TOKEN}` };

/** Starts `cortex mcp --http 0`; resolves with its URL once it prints it, rejects if it exits first. */
function startMcpHttp(profile: string, env: NodeJS.ProcessEnv): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [join(PROJECT_ROOT, 'bin', 'cortex.js'), '--profile', profile, 'mcp', '--http', '0'], {
    env: { ...env, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const match = /serving MCP on (http:\/\/\S+)/.exec(out);
      if (match) resolve({ url: match[1]!, child });
    });
    child.once('close', (code) => reject(new Error(`cortex mcp exited with ${code} before listening:\n${out}\n${err}`)));
  });
}

/** A raw POST with the given headers (Host included, which fetch will not let us set). */
function rawPost(url: string, headers: Record<string, string>): Promise<number> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.once('error', reject);
    req.end(body);
  });
}

describe('cortex mcp --http', () => {
  let llm: FakeLlmServer;
  let server: { url: string; child: ChildProcess };

  beforeAll(async () => {
    llm = await startBookingLlm();
    const { profile } = tempProject({ servers: BOOKING_SERVER });
    server = await startMcpHttp(profile, { ...ollamaEnv(llm.url), CORTEX_API_TOKEN: TOKEN });
  });
  afterAll(async () => {
    if (server && server.child.exitCode === null) {
      const closed = new Promise((resolve) => server.child.once('close', resolve));
      server.child.kill('SIGTERM');
      await closed;
    }
    await llm?.close();
  });

  it('refuses a request without the token (401), a foreign Host (DNS rebinding) and a foreign Origin', async () => {
    const port = new URL(server.url).port;
    expect(await rawPost(server.url, {})).toBe(401);
    expect(await rawPost(server.url, { authorization: 'Bearer wrong-token-wrong-token-0000' })).toBe(401);
    expect(await rawPost(server.url, { ...AUTH, host: `evil.example.com:${port}` })).toBe(421);
    expect(await rawPost(server.url, { ...AUTH, origin: 'http://evil.example.com' })).toBe(403);
    expect(await rawPost(server.url, { ...AUTH, host: `localhost:${port}` })).toBe(200);
  });

  it('answers a 2026-07-28 client (SDK v2), asking it through input_required rounds, with progress', async () => {
    const asked: string[] = [];
    const client = new ModernClient({ name: 'http-v2', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: '2026-07-28' } } });
    client.setRequestHandler('elicitation/create', (request) => (asked.push(request.params.message), { action: 'accept' as const }));
    await client.connect(new ModernHttpTransport(new URL(server.url), { requestInit: { headers: AUTH } }));
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['ask']);
      const progress: string[] = [];
      const result = await client.callTool({ name: 'ask', arguments: { question: 'Cancel my booking' } }, { onprogress: (p) => progress.push(p.message ?? '') });
      expect(result.structuredContent).toMatchObject({ status: 'answered', answer: 'booking cancelled' });
      expect(asked).toEqual(['Cortex-R asks before running a tool: Allow booking.cancel_booking?\n  It may change or delete data.\n  Arguments: none']);
      expect(progress.length).toBeGreaterThan(3);
      // A follow-up names its session; the SDK mirrors it into the Mcp-Param-Session-Id header the server checks.
      const sessionId = (result.structuredContent as { session_id: string }).session_id;
      const followUp = await client.callTool({ name: 'ask', arguments: { question: 'Book me a table', session_id: sessionId } });
      expect(followUp.structuredContent).toMatchObject({ status: 'answered', session_id: sessionId });
    } finally {
      await client.close();
    }
  }, 60_000);

  it('answers a 2025-11-25 client (SDK v1) in a session of its own, asking it with elicitation/create', async () => {
    const asked: string[] = [];
    const client = new Client({ name: 'http-v1', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
    client.setRequestHandler(ElicitRequestSchema, (request) => (asked.push(request.params.message), { action: 'decline' }));
    const transport = new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: AUTH } });
    await client.connect(transport);
    expect(transport.protocolVersion).toBe('2025-11-25');
    expect(transport.sessionId).toMatch(/^[\x21-\x7e]+$/);
    const result = await client.callTool({ name: 'ask', arguments: { question: 'Cancel my booking' } });
    expect((result.structuredContent as { answer: string }).answer).toMatch(/^not done: .*the user declined it/);
    expect(asked).toHaveLength(1);
    // Ending the session: the server forgets it, and a request naming it is refused.
    const sessionId = transport.sessionId!;
    await transport.terminateSession();
    await client.close();
    const after = await fetch(server.url, {
      method: 'POST',
      headers: { ...AUTH, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    expect(after.status).toBe(404);
  }, 60_000);

  it('stops on SIGTERM, with exit code 0, after serving both revisions', async () => {
    const exited = new Promise<number | null>((resolve) => server.child.once('close', (code) => resolve(code)));
    server.child.kill('SIGTERM');
    expect(await exited).toBe(0);
  }, 60_000);
});

describe('cortex mcp --http --host', () => {
  it('refuses to serve past loopback without CORTEX_API_TOKEN', async () => {
    const { profile } = tempProject();
    const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
    delete env.CORTEX_API_TOKEN;
    const child = spawn(process.execPath, [join(PROJECT_ROOT, 'bin', 'cortex.js'), '--profile', profile, 'mcp', '--http', '0', '--host', '0.0.0.0'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('close', (c) => resolve(c)));
    expect(code).not.toBe(0);
    expect(err).toContain('serving MCP on 0.0.0.0 would open it to the network: set CORTEX_API_TOKEN');
  }, 60_000);
});

// `cortex mcp` over stdio speaks MCP 2026-07-28 to a client that asks for it (SDK v2, per-request _meta, questions as
// input_required rounds) and 2025-era revisions to older clients (SDK v1, elicitation/create), from the built CLI.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Client as ModernClient } from '@modelcontextprotocol/client';
import { StdioClientTransport as ModernStdioTransport } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/paths.js';
import type { FakeLlmServer } from '../helpers/fake-ollama-server.js';
import { ollamaEnv, tempProject } from './ask-harness.js';
import { BOOKING_SERVER, startBookingLlm } from './booking-harness.js';

const CLI = join(PROJECT_ROOT, 'bin', 'cortex.js');

describe('cortex mcp over stdio, by protocol revision', () => {
  let llm: FakeLlmServer;
  let profile: string;
  const open: Array<{ close(): Promise<void> }> = [];

  beforeAll(async () => {
    llm = await startBookingLlm();
    profile = tempProject({ servers: BOOKING_SERVER }).profile;
  });
  afterEach(async () => {
    for (const c of open.splice(0)) await c.close();
  });
  afterAll(() => llm?.close());

  const params = () => ({ command: process.execPath, args: [CLI, '--profile', profile, 'mcp'], env: ollamaEnv(llm.url) as Record<string, string>, stderr: 'ignore' as const });

  /** An SDK v2 client; `pin` chooses 2026-07-28 outright, else it negotiates ('auto') or stays on 2025 ('legacy'). */
  async function modern(mode: 'auto' | 'legacy' | { pin: string }, answer?: (message: string) => { action: 'accept' | 'decline' }): Promise<ModernClient> {
    const client = new ModernClient({ name: 'cortex-test-v2', version: '1.0.0' }, { capabilities: answer ? { elicitation: { form: {} } } : {}, versionNegotiation: { mode } });
    if (answer) client.setRequestHandler('elicitation/create', (request) => answer(request.params.message));
    await client.connect(new ModernStdioTransport(params()));
    open.push(client);
    return client;
  }

  it('negotiates 2026-07-28 with a v2 client, which finds the ask tool and gets the answer with progress', async () => {
    const client = await modern('auto');
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    expect(client.getServerVersion()?.name).toBe('cortex-r');
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['ask']);
    const progress: string[] = [];
    const result = await client.callTool({ name: 'ask', arguments: { question: 'Book me a table' } }, { onprogress: (p) => progress.push(p.message ?? '') });
    // This client declared no elicitation: the tool server's form is declined without asking anyone.
    expect(result.structuredContent).toMatchObject({ status: 'answered', answer: 'not booked (decline)' });
    expect(progress.length).toBeGreaterThan(3);
  }, 60_000);

  it("on 2026-07-28 puts a tool server's form and an approval to the client as input_required rounds", async () => {
    const asked: string[] = [];
    let allow = true;
    const client = await modern({ pin: '2026-07-28' }, (message) => {
      asked.push(message);
      return { action: allow || message.startsWith('The tool server') ? 'accept' : 'decline' };
    });
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    const booked = await client.callTool({ name: 'ask', arguments: { question: 'Book me a table' } });
    // Accepted with no fields: the fixture books for nobody in particular.
    expect((booked.structuredContent as { status: string }).status).toBe('answered');
    expect(asked).toEqual(['The tool server "booking" asks: Who is the table for?']);
    const cancelled = await client.callTool({ name: 'ask', arguments: { question: 'Cancel my booking' } });
    expect(cancelled.structuredContent).toMatchObject({ answer: 'booking cancelled' });
    allow = false;
    const refused = await client.callTool({ name: 'ask', arguments: { question: 'Cancel my booking again' } });
    expect((refused.structuredContent as { answer: string }).answer).toMatch(/^not done: .*the user declined it/);
    expect(asked.slice(1)).toEqual([
      'Cortex-R asks before running a tool: Allow booking.cancel_booking?\n  It may change or delete data.\n  Arguments: none',
      'Cortex-R asks before running a tool: Allow booking.cancel_booking?\n  It may change or delete data.\n  Arguments: none',
    ]);
  }, 60_000);

  it('stays on 2025-11-25 with a v2 client that does not negotiate, and asks it with elicitation/create', async () => {
    const asked: string[] = [];
    const client = await modern('legacy', (message) => (asked.push(message), { action: 'accept' }));
    expect(client.getNegotiatedProtocolVersion()).toBe('2025-11-25');
    const result = await client.callTool({ name: 'ask', arguments: { question: 'Cancel my booking' } });
    expect(result.structuredContent).toMatchObject({ answer: 'booking cancelled' });
    expect(asked).toHaveLength(1);
  }, 60_000);

  it('serves an SDK v1 client on 2025-11-25', async () => {
    const client = new Client({ name: 'cortex-test-v1', version: '1.0.0' });
    await client.connect(new StdioClientTransport(params()));
    open.push(client);
    expect(client.getServerVersion()?.name).toBe('cortex-r');
    const result = await client.callTool({ name: 'ask', arguments: { question: 'Book me a table' } });
    expect(result.structuredContent).toMatchObject({ status: 'answered', answer: 'not booked (decline)' });
  }, 60_000);

  it('answers an initialize for the older 2025-06-18 revision with that revision', async () => {
    const child = spawn(process.execPath, [CLI, '--profile', profile, 'mcp'], { env: ollamaEnv(llm.url), stdio: ['pipe', 'pipe', 'ignore'] });
    const lines = createInterface({ input: child.stdout });
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'old', version: '1' } } })}\n`);
    const [line] = (await once(lines, 'line')) as [string];
    child.stdin.end();
    await once(child, 'exit');
    expect(JSON.parse(line)).toMatchObject({ id: 1, result: { protocolVersion: '2025-06-18', serverInfo: { name: 'cortex-r' } } });
  }, 60_000);
});

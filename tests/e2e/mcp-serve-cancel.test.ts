// Cancel means cancel on MCP 2026-07-28 too: a tools/call the v2 client cancels stops its plan, which makes no tool
// call after it, and frees its slot for the next question.
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/paths.js';
import type { FakeLlmServer } from '../helpers/fake-ollama-server.js';
import { recorderProject, startGateLlm } from './cancel-harness.js';
import { ollamaEnv } from './serve-harness.js';

/** Round trips made while waiting for the recorder to see a call; each awaits a real answer, no timers. */
const MAX_ROUND_TRIPS = 2_000;

describe('cortex mcp on 2026-07-28: a cancelled tools/call stops its plan', () => {
  let llm: FakeLlmServer;
  let client: Client;
  let project: ReturnType<typeof recorderProject>;

  beforeAll(async () => {
    llm = await startGateLlm();
    project = recorderProject('serve:\n  max_concurrent: 1\n  sandbox_workers: 1\n');
    client = new Client({ name: 'cortex-cancel-v2', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [join(PROJECT_ROOT, 'bin', 'cortex.js'), '--profile', project.profile, 'mcp'],
        env: ollamaEnv(llm.url) as Record<string, string>,
        stderr: 'ignore',
      }),
    );
  });
  afterAll(async () => {
    await client?.close();
    await llm?.close();
  });

  it('makes no tool call after the cancel, and answers the next question', async () => {
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    const controller = new AbortController();
    const held = client.callTool({ name: 'ask', arguments: { question: 'Run GATE-M' } }, { signal: controller.signal });
    held.catch(() => undefined);
    // tools/list would be answered from the client's cache (the server says it may be): a refused question is a real round trip.
    for (let i = 0; i < MAX_ROUND_TRIPS && !project.calls().includes('gate GATE-M'); i++) {
      expect((await client.callTool({ name: 'ask', arguments: { question: 'Run NOTE-X' } })).isError).toBe(true);
    }
    expect(project.calls()).toEqual(['note GATE-M before', 'gate GATE-M']);
    controller.abort();
    await expect(held).rejects.toThrow();
    let answer: Awaited<ReturnType<Client['callTool']>> | undefined;
    for (let i = 0; i < MAX_ROUND_TRIPS && !answer; i++) {
      const result = await client.callTool({ name: 'ask', arguments: { question: 'Run NOTE-N' } });
      if (!result.isError) answer = result;
    }
    project.release('GATE-M');
    await client.callTool({ name: 'ask', arguments: { question: 'Run NOTE-O' } });
    expect(answer?.structuredContent).toMatchObject({ status: 'answered', answer: 'noted' });
    expect(project.calls()).toEqual(['note GATE-M before', 'gate GATE-M', 'note NOTE-N', 'note NOTE-O']);
  }, 60_000);
});

// Cancel means cancel over MCP: a tools/call the client cancels stops its plan, which makes no tool call after it.
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/paths.js';
import type { FakeLlmServer } from '../helpers/fake-ollama-server.js';
import { recorderProject, startGateLlm } from './cancel-harness.js';
import { ollamaEnv } from './serve-harness.js';

/** Round trips made while waiting for the recorder to see a call; each awaits a real answer, no timers. */
const MAX_ROUND_TRIPS = 2_000;

describe('cortex mcp: a cancelled tools/call stops its plan', () => {
  let llm: FakeLlmServer;
  let client: Client;
  let project: ReturnType<typeof recorderProject>;

  beforeAll(async () => {
    llm = await startGateLlm();
    // One question at a time: the next one is answered only once the cancelled one has released its slot.
    project = recorderProject('serve:\n  max_concurrent: 1\n  sandbox_workers: 1\n');
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [join(PROJECT_ROOT, 'bin', 'cortex.js'), '--profile', project.profile, 'mcp'],
      env: ollamaEnv(llm.url) as Record<string, string>,
      stderr: 'pipe',
    });
    client = new Client({ name: 'cortex-cancel-test', version: '1.0.0' });
    await client.connect(transport);
  });
  afterAll(async () => {
    await client?.close();
    await llm?.close();
  });

  it('makes no tool call after the cancel, and answers the next question', async () => {
    const controller = new AbortController();
    const held = client.callTool({ name: 'ask', arguments: { question: 'Run GATE-M' } }, undefined, { signal: controller.signal });
    held.catch(() => undefined);
    for (let i = 0; i < MAX_ROUND_TRIPS && !project.calls().includes('gate GATE-M'); i++) await client.listTools();
    expect(project.calls()).toEqual(['note GATE-M before', 'gate GATE-M']);
    controller.abort();
    await expect(held).rejects.toThrow();
    // Refused while the cancelled plan still holds the only slot; answered once it has ended.
    let answer: CallToolResult | undefined;
    for (let i = 0; i < MAX_ROUND_TRIPS && !answer; i++) {
      const result = (await client.callTool({ name: 'ask', arguments: { question: 'Run NOTE-N' } })) as CallToolResult;
      if (!result.isError) answer = result;
    }
    project.release('GATE-M');
    // One more question after the gate opened: the cancelled plan, had it gone on, would have noted before it.
    await client.callTool({ name: 'ask', arguments: { question: 'Run NOTE-O' } });
    expect(answer?.structuredContent).toMatchObject({ status: 'answered', answer: 'noted' });
    expect(project.calls()).toEqual(['note GATE-M before', 'gate GATE-M', 'note NOTE-N', 'note NOTE-O']);
  });
});

import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/paths.js';
import type { FakeLlmServer } from '../helpers/fake-ollama-server.js';
import { tempProject } from './ask-harness.js';
import { ollamaEnv, startPlanningLlm } from './serve-harness.js';

/** Requests made while waiting for the server's stderr to show a line; each awaits a real answer, no timers. */
const MAX_ROUND_TRIPS = 1_000;

describe('cortex mcp (the SDK client over stdio, real servers and sandbox)', () => {
  let llm: FakeLlmServer;
  let client: Client;
  let stderr = '';

  beforeAll(async () => {
    llm = await startPlanningLlm();
    const { profile } = tempProject();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [join(PROJECT_ROOT, 'bin', 'cortex.js'), '--profile', profile, 'mcp'],
      env: ollamaEnv(llm.url) as Record<string, string>,
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    client = new Client({ name: 'cortex-test', version: '1.0.0' });
    await client.connect(transport);
  });
  afterAll(async () => {
    await client?.close();
    await llm?.close();
  });

  it('offers one tool, ask, with its input and output schemas', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['ask']);
    expect(Object.keys(tools[0]!.inputSchema.properties ?? {}).sort()).toEqual(['question', 'session_id']);
    expect(Object.keys(tools[0]!.outputSchema?.properties ?? {}).sort()).toEqual(['answer', 'caution', 'sent', 'session_id', 'status', 'steps']);
  });

  it('answers a two-step question with text and structured content, sending progress for each agent event', async () => {
    // The SDK hands over the notification's params, _meta included, though its type omits it.
    const progress: Array<Progress & { _meta?: Record<string, unknown> }> = [];
    const result = await client.callTool({ name: 'ask', arguments: { question: 'Add the ASCII codes of AB' } }, undefined, {
      onprogress: (p) => progress.push(p),
    });
    expect(result.isError).toBeFalsy();
    expect(result.content).toEqual([{ type: 'text', text: '131' }]);
    const structured = result.structuredContent as { status: string; answer: string; session_id: string; steps: Array<{ outcome: string }> };
    expect(structured).toMatchObject({ status: 'answered', answer: '131' });
    expect(structured.steps.map((s) => s.outcome)).toEqual(['further_processing', 'final_answer']);

    const kinds = progress.map((p) => (p._meta?.['cortex-r/event'] as { type: string }).type);
    // Perception runs once per question; each step is then planned, run and judged.
    const attempt = ['planning', 'llm_start', 'llm_end', 'running', 'tool_call', 'tool_call', 'outcome'];
    expect(kinds).toEqual(['perceiving', 'llm_start', 'llm_end', 'perceived', ...attempt, ...attempt]);
    expect(progress.map((p) => p.progress)).toEqual(kinds.map((_, i) => i + 1));
    expect(progress[kinds.indexOf('tool_call')]!.message).toContain('strings_to_chars_to_int({"string":"AB"})');

    const followUp = await client.callTool({ name: 'ask', arguments: { question: 'And again', session_id: structured.session_id } });
    expect(followUp.structuredContent).toMatchObject({ status: 'answered', session_id: structured.session_id });
  });

  it('reports an unknown session as a tool error, and keeps stdout for the protocol', async () => {
    const result = await client.callTool({ name: 'ask', arguments: { question: 'x', session_id: '1700000000-abcdef' } });
    expect(result.isError).toBe(true);
    expect((result.content as Array<{ text: string }>)[0]!.text).toMatch(/no session 1700000000-abcdef/);
    // Had anything but JSON-RPC reached stdout, the client would have failed to parse it and closed.
    expect((await client.listTools()).tools).toHaveLength(1);
    expect(stderr).toMatch(/model: /);
  });

  it('answers a message over 10 MB with an error and keeps serving', async () => {
    const huge = client.callTool({ name: 'ask', arguments: { question: 'x'.repeat(11 * 2 ** 20) } });
    await expect(huge).rejects.toThrow(/larger than 10 MB was dropped/);
    expect((await client.listTools()).tools).toHaveLength(1);
    // stderr is a pipe of its own: a few more round trips let its line arrive.
    for (let i = 0; i < MAX_ROUND_TRIPS && !stderr.includes('cortex mcp: a message larger than 10 MB was dropped'); i++) await client.listTools();
    expect(stderr).toMatch(/cortex mcp: a message larger than 10 MB was dropped/);
  });
});

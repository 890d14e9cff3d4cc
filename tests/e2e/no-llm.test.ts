// `cortex serve` and `cortex mcp` start without a reachable LLM: sessions can be browsed, questions get a clear error.
import { createServer } from 'node:net';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/paths.js';
import { tempProject } from './ask-harness.js';
import { ask, jsonOf, ollamaEnv, startServe } from './serve-harness.js';

/** A local URL where nothing listens (a port taken, then freed). */
async function deadUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

describe('without a reachable LLM', () => {
  it('cortex serve starts, lists sessions, and answers a question with a "no LLM" error', async () => {
    const { profile } = tempProject();
    const serve = await startServe(profile, ollamaEnv(await deadUrl()));
    try {
      expect(serve.stderr()).toContain('questions get a "no LLM" error until one is reachable');
      const sessions = await fetch(`${serve.url}/v1/sessions`);
      expect(sessions.status).toBe(200);
      const answer = await ask(serve.url, { question: 'What is 2 + 2?' }, { sse: false });
      expect(answer.status).toBe(503);
      const body = await jsonOf(answer);
      expect(body.error.code).toBe('llm_unavailable');
      expect(body.error.message).toContain('No LLM is reachable');
    } finally {
      await serve.stop();
    }
  });

  it('cortex mcp starts, lists its tool, and answers ask with a "no LLM" tool error', async () => {
    const { profile } = tempProject();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [join(PROJECT_ROOT, 'bin', 'cortex.js'), '--profile', profile, 'mcp'],
      env: ollamaEnv(await deadUrl()) as Record<string, string>,
      stderr: 'pipe',
    });
    const client = new Client({ name: 'cortex-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(['ask']);
      const result = await client.callTool({ name: 'ask', arguments: { question: 'What is 2 + 2?' } });
      expect(result.isError).toBe(true);
      expect(JSON.stringify(result.content)).toContain('No LLM is reachable');
    } finally {
      await client.close();
    }
  });
});

// `cortex mcp` ends by itself when its client leaves (stdin closed), after answering, with no signal needed.
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/paths.js';
import { tempProject } from './ask-harness.js';
import { ollamaEnv, startPlanningLlm } from './serve-harness.js';

it('exits with code 0 on its own once the client closes its stdin after a question', async () => {
  const llm = await startPlanningLlm();
  try {
    const { profile } = tempProject();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [join(PROJECT_ROOT, 'bin', 'cortex.js'), '--profile', profile, 'mcp'],
      env: ollamaEnv(llm.url) as Record<string, string>,
      stderr: 'pipe',
    });
    const client = new Client({ name: 'cortex-test', version: '1.0.0' });
    await client.connect(transport);
    const answer = await client.callTool({ name: 'ask', arguments: { question: 'Add the ASCII codes of AB' } });
    expect(answer.content).toEqual([{ type: 'text', text: '131' }]);
    // The SDK's close() ends stdin, then sends SIGTERM if the server is still there 2 s later: the exit must not need it.
    const child = (transport as unknown as { _process: import('node:child_process').ChildProcess })._process;
    const exited = new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.once('exit', (code, signal) => resolve([code, signal])));
    child.stdin!.end();
    expect(await exited).toEqual([0, null]);
  } finally {
    await llm.close();
  }
});

// A sandbox worker that cannot load isolated-vm (installed under another Node.js): the run reports why and how to fix
// it, in one line, instead of "the worker process ended" and the last line of a stack trace.
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/paths.js';
import { createSandbox } from '../../src/sandbox/create-sandbox.js';
import { runReply } from '../helpers/run-reply.js';
import { arithmeticCaller, binaryTool } from './fake-callers.js';

const sandbox = createSandbox({ workerPath: join(PROJECT_ROOT, 'tests', 'fixtures', 'worker-without-ivm.mjs') });
afterAll(() => sandbox.close());

it('reports a worker that cannot load isolated-vm as unavailable, with the reason and the fix', async () => {
  const result = await runReply(sandbox, { code: 'async function solve() { return await tools.add({a: 2, b: 3}); }', tools: [binaryTool('add')], caller: arithmeticCaller() });
  expect(result.ok).toBe(false);
  if (result.ok) return;
  expect(result.error.kind).toBe('unavailable');
  expect(result.error.message).toContain('isolated-vm could not be loaded on Node');
  expect(result.error.message).toContain('was compiled against a different Node.js version using NODE_MODULE_VERSION 115. This version of Node.js requires NODE_MODULE_VERSION 127.');
  expect(result.error.message).toContain('Reinstall with the Node you run Cortex-R with: npm run setup');
  expect(result.error.message).not.toContain('\n');
  expect(result.calls).toEqual([]);
});

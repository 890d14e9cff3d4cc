// prestart(): the worker process starts before the first run (while the model answers), and that run uses it.
import { afterEach, describe, expect, it } from 'vitest';
import { createSandbox, type ProcessSandbox } from '../../src/sandbox/create-sandbox.js';
import { createSandboxPool } from '../../src/sandbox/sandbox-pool.js';
import type { Sandbox } from '../../src/sandbox/types.js';
import { arithmeticCaller, binaryTool } from './fake-callers.js';
import { runReply } from '../helpers/run-reply.js';

const TOOLS = [binaryTool('add')];
const PLAN = 'async function solve() { return await tools.add({a: 2, b: 3}); }';
const opened: Sandbox[] = [];

function open<T extends Sandbox>(sandbox: T): T {
  opened.push(sandbox);
  return sandbox;
}

afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close()));
});

describe('sandbox prestart', () => {
  it('starts one worker before any run, and the first run uses it', async () => {
    const sandbox: ProcessSandbox = open(createSandbox());
    expect(sandbox.workerPid).toBeUndefined();
    sandbox.prestart();
    const pid = sandbox.workerPid;
    expect(pid).toBeDefined();
    sandbox.prestart();
    expect(sandbox.workerPid).toBe(pid);
    expect(await runReply(sandbox, { code: PLAN, tools: TOOLS, caller: arithmeticCaller() })).toMatchObject({ ok: true, value: '5' });
    expect(sandbox.workerPid).toBe(pid);
  });

  it('starts nothing once the sandbox is closed', async () => {
    const sandbox = createSandbox();
    await sandbox.close();
    sandbox.prestart();
    expect(sandbox.workerPid).toBeUndefined();
  });

  it('a pool started early still answers its runs', async () => {
    const pool = open(createSandboxPool({ size: 2 }));
    pool.prestart?.();
    const results = await Promise.all([1, 2].map(() => runReply(pool, { code: PLAN, tools: TOOLS, caller: arithmeticCaller() })));
    expect(results).toMatchObject([{ ok: true, value: '5' }, { ok: true, value: '5' }]);
  });
});

// The worker makes each run's isolate while it waits for the run: still a fresh one, with that run's memory limit.
import { describe, expect, it } from 'vitest';
import type { ProcessSandbox } from '../../src/sandbox/create-sandbox.js';
import type { SandboxLimits } from '../../src/sandbox/types.js';
import { runReply } from '../helpers/run-reply.js';
import { TEST_LIMITS } from './contain.js';
import { withMathSandbox, type MathServer } from './math-server.js';

/** The memory test's deadline stays out of the way (see sandbox-runaway.test.ts), under the test's own timeout. */
const MEMORY_LIMITS: SandboxLimits = { ...TEST_LIMITS, timeoutMs: 100_000 };
const MEMORY_TEST_TIMEOUT_MS = 120_000;

let math: MathServer;
let sandbox: ProcessSandbox;

withMathSandbox((started) => ({ math, sandbox } = started));

function run(body: string, limits: SandboxLimits = TEST_LIMITS) {
  const { tools, caller } = math;
  return runReply(sandbox, { code: `async function solve() {\n${body}\n}`, tools, caller, limits });
}

describe('the isolate made in advance for the next run', () => {
  it('holds nothing an earlier run left: its globals and prototypes are its own', async () => {
    const first = await run('globalThis.left = 1; Array.prototype.left = 2; Object.prototype.left = 3; return await tools.add({a: 1, b: 1});');
    expect(first).toMatchObject({ ok: true, value: '2' });
    const next = await run('return [typeof globalThis.left, typeof [].left, typeof ({}).left, await tools.add({a: 2, b: 3})].join(" ");');
    expect(next).toMatchObject({ ok: true, value: 'undefined undefined undefined 5' });
    expect(sandbox.workerPid).toBeDefined();
  });

  it('has the memory limit of the run it serves, not of the run before', async () => {
    // About 80 MB kept alive in the isolate's own heap: room enough under 512 MB, far past 16 MB.
    const allocate = 'const a = []; for (let i = 0; i < 100; i++) a.push(new Array(1e5).fill(i)); return a.length;';
    const roomy = await run(allocate, { ...MEMORY_LIMITS, memoryMb: 512 });
    expect(roomy).toMatchObject({ ok: true, value: '100' });
    const tight = await run(allocate, { ...MEMORY_LIMITS, memoryMb: 16 });
    expect(tight.ok ? `ok: ${tight.value}` : tight.error.kind).toBe('memory');
    expect(await run('return await tools.add({a: 2, b: 3});')).toMatchObject({ ok: true, value: '5' });
  }, MEMORY_TEST_TIMEOUT_MS);
});

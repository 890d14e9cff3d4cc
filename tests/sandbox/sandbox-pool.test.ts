// The sandbox pool: plans of concurrent questions run side by side on separate workers, up to the pool size.
import { afterEach, describe, expect, it } from 'vitest';
import { createSandboxPool } from '../../src/sandbox/sandbox-pool.js';
import type { Sandbox, SandboxRunOptions } from '../../src/sandbox/types.js';
import { TEST_LIMITS } from './contain.js';
import { binaryTool, numberResult, scriptedCaller } from './fake-callers.js';
import { runReply } from '../helpers/run-reply.js';

/** A caller whose `add` calls wait until the test releases them, so a run can be held mid-plan. */
function gatedCaller() {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let count = 0;
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  const caller = scriptedCaller(async (name, args) => {
    count++;
    for (const w of waiters.filter((w) => count >= w.n)) w.resolve();
    if (name === 'add') await gate;
    return numberResult(Number(args.a) + Number(args.b));
  });
  const callsStarted = (n: number) => (count >= n ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ n, resolve })));
  return { caller, release, callsStarted };
}

const PLAN = (tool: string) => `async function solve() { return "FINAL_ANSWER: " + await tools.${tool}({ a: 2, b: 3 }); }`;

let pool: Sandbox | undefined;
afterEach(async () => {
  await pool?.close();
  pool = undefined;
});

describe('createSandboxPool', () => {
  it('runs a second plan while the first is still waiting on a tool', async () => {
    pool = createSandboxPool({ size: 2 });
    const { caller, release, callsStarted } = gatedCaller();
    const run = (tool: string): Promise<unknown> =>
      runReply(pool!, { code: PLAN(tool), tools: [binaryTool('add'), binaryTool('multiply')], caller, limits: TEST_LIMITS } satisfies SandboxRunOptions);
    const held = run('add');
    await callsStarted(1);
    expect(await run('multiply')).toMatchObject({ ok: true, value: 'FINAL_ANSWER: 5' });
    release();
    expect(await held).toMatchObject({ ok: true, value: 'FINAL_ANSWER: 5' });
  });

  it('makes a run wait for a free worker when all are busy, then runs it', async () => {
    pool = createSandboxPool({ size: 1 });
    const { caller, release, callsStarted } = gatedCaller();
    const options = (tool: string): SandboxRunOptions => ({ code: PLAN(tool), tools: [binaryTool('add'), binaryTool('multiply')], caller, limits: TEST_LIMITS });
    const held = pool.run(options('add'));
    await callsStarted(1);
    const second = pool.run(options('multiply'));
    release();
    expect(await held).toMatchObject({ ok: true });
    expect(await second).toMatchObject({ ok: true, value: 'FINAL_ANSWER: 5' });
    expect(caller.received.map((c) => c.name)).toEqual(['add', 'multiply']);
  });

  it('refuses to run after close, without throwing', async () => {
    pool = createSandboxPool({ size: 2 });
    await pool.close();
    expect(await runReply(pool, { code: PLAN('add'), tools: [binaryTool('add')], caller: scriptedCaller(() => numberResult(0)), limits: TEST_LIMITS })).toMatchObject({
      ok: false,
      error: { kind: 'crash' },
    });
  });
});

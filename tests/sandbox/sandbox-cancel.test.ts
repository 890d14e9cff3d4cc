// Cancel means cancel: a question's signal ends its plan at once, with no tool call after it, and drops waiting runs.
import { afterEach, describe, expect, it } from 'vitest';
import { createSandbox, type ProcessSandbox } from '../../src/sandbox/create-sandbox.js';
import { createSandboxPool } from '../../src/sandbox/sandbox-pool.js';
import type { Sandbox, SandboxRunOptions } from '../../src/sandbox/types.js';
import { TEST_LIMITS } from './contain.js';
import { binaryTool, numberResult, scriptedCaller } from './fake-callers.js';
import { runReply } from '../helpers/run-reply.js';

/** Long enough that only the cancel can end these runs: the deadline plays no part. */
const LIMITS = { ...TEST_LIMITS, maxToolCalls: 1_000, timeoutMs: 120_000 };
const TOOLS = [binaryTool('add'), binaryTool('multiply')];
/** A plan that calls tools for ever: only a cancel stops it. */
const ENDLESS = 'async function solve() { for (let i = 0; ; i++) await tools.add({ a: i, b: 1 }); }';

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

let sandboxes: Sandbox[] = [];
afterEach(async () => {
  await Promise.all(sandboxes.map((s) => s.close()));
  sandboxes = [];
});
function processSandbox(): ProcessSandbox {
  const sandbox = createSandbox();
  sandboxes.push(sandbox);
  return sandbox;
}

describe('sandbox cancel', () => {
  it('makes no tool call once the question is cancelled, and kills the plan\'s worker', async () => {
    const sandbox = processSandbox();
    const controller = new AbortController();
    const events: string[] = [];
    let workerPid = 0;
    const caller = scriptedCaller((_name, args) => {
      events.push(`call ${String(args.a)}`);
      workerPid = sandbox.workerPid!;
      if (args.a === 2) {
        controller.abort();
        events.push('cancelled');
      }
      return numberResult(Number(args.a) + 1);
    });
    const result = await runReply(sandbox, { code: ENDLESS, tools: TOOLS, caller, limits: LIMITS, signal: controller.signal });
    expect(result).toMatchObject({ ok: false, error: { kind: 'cancelled' } });
    expect(events).toEqual(['call 0', 'call 1', 'call 2', 'cancelled']);
    expect(isAlive(workerPid)).toBe(false);
    // The next run gets a new worker and works.
    const next = await runReply(sandbox, { code: 'async function solve() { return await tools.multiply({ a: 6, b: 7 }); }', tools: TOOLS, caller: scriptedCaller(() => numberResult(42)), limits: TEST_LIMITS });
    expect(next).toMatchObject({ ok: true, value: '42' });
  });

  it('abandons the call in flight when cancelled: its signal aborts and its answer is never used', async () => {
    const sandbox = processSandbox();
    const controller = new AbortController();
    const seen: Array<{ name: string; signal?: AbortSignal }> = [];
    let answer!: () => void;
    const caller = scriptedCaller((name) => {
      if (name === 'multiply') throw new Error('multiply must never be called');
      return new Promise((resolve) => {
        answer = () => resolve(numberResult(1));
        controller.abort();
      });
    });
    const recording = { ...caller, callTool: (s: string, n: string, a: Record<string, unknown>, o: { signal?: AbortSignal } = {}) => (seen.push({ name: n, ...o }), caller.callTool(s, n, a, o)) };
    const code = 'async function solve() { const x = await tools.add({ a: 1, b: 1 }); return await tools.multiply({ a: x, b: 2 }); }';
    const result = await runReply(sandbox, { code, tools: TOOLS, caller: recording, limits: LIMITS, signal: controller.signal });
    answer();
    expect(result).toMatchObject({ ok: false, error: { kind: 'cancelled' } });
    expect(seen.map((c) => c.name)).toEqual(['add']);
    expect(seen[0]!.signal?.aborted).toBe(true);
  });

  it('never starts a run whose question was cancelled before it began', async () => {
    const sandbox = processSandbox();
    const controller = new AbortController();
    controller.abort();
    const caller = scriptedCaller(() => numberResult(0));
    expect(await runReply(sandbox, { code: ENDLESS, tools: TOOLS, caller, limits: LIMITS, signal: controller.signal })).toMatchObject({ ok: false, error: { kind: 'cancelled' } });
    expect(caller.received).toEqual([]);
    expect(sandbox.workerPid).toBeUndefined();
  });

  it('drops a run waiting for a busy pool when its question is cancelled, without waiting for the busy one', async () => {
    const pool = createSandboxPool({ size: 1 });
    sandboxes.push(pool);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let started!: () => void;
    const holding = new Promise<void>((resolve) => (started = resolve));
    const caller = scriptedCaller(async (name) => {
      if (name === 'add') {
        started();
        await gate;
      }
      return numberResult(1);
    });
    const options = (code: string, signal?: AbortSignal): SandboxRunOptions => ({ code, tools: TOOLS, caller, limits: LIMITS, ...(signal ? { signal } : {}) });
    const held = pool.run(options('async function solve() { return await tools.add({ a: 1, b: 1 }); }'));
    await holding;
    const controller = new AbortController();
    const queued = pool.run(options('async function solve() { return await tools.multiply({ a: 1, b: 1 }); }', controller.signal));
    controller.abort();
    expect(await queued).toMatchObject({ ok: false, error: { kind: 'cancelled' } });
    release();
    expect(await held).toMatchObject({ ok: true, value: '1' });
    // The freed worker serves the next run; the dropped one never ran.
    expect(await pool.run(options('async function solve() { return "done"; }'))).toMatchObject({ ok: true, value: 'done' });
    expect(caller.received.map((c) => c.name)).toEqual(['add']);
  });
});

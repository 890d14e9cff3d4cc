// Faults outside the model's code: tools that hang or crash, a worker that dies; the real isolate with fake callers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type ProcessSandbox } from '../../src/sandbox/create-sandbox.js';
import type { SandboxResult } from '../../src/sandbox/types.js';
import { TEST_LIMITS } from './contain.js';
import { arithmeticCaller, binaryTool, crashingCaller, scriptedCaller, silentCaller, type RecordingCaller } from './fake-callers.js';
import { expectHostUnharmed } from './host-health.js';
import { runReply } from '../helpers/run-reply.js';

const TOOLS = [binaryTool('add'), binaryTool('multiply')];
let sandbox: ProcessSandbox;

beforeAll(() => {
  sandbox = createSandbox();
});

afterAll(async () => {
  await sandbox?.close();
});

/** Runs `body` under TEST_LIMITS; the result's kind says which limit ended it (no wall-clock bound: a busy machine is slow). */
async function runTimed(body: string, caller: RecordingCaller): Promise<SandboxResult> {
  const result = await runReply(sandbox, { code: `async function solve() {\n${body}\n}`, tools: TOOLS, caller, limits: TEST_LIMITS });
  await expectHostUnharmed();
  return result;
}

async function expectNextRunWorks(): Promise<void> {
  const next = await runReply(sandbox, { code: 'async function solve() { return await tools.add({a: 2, b: 3}); }', tools: TOOLS, caller: arithmeticCaller() });
  expect(next).toMatchObject({ ok: true, value: '5' });
}

describe('sandbox faults', () => {
  it('ends a run waiting on a tool that never answers at the deadline, and abandons the call', async () => {
    const caller = silentCaller();
    const result = await runTimed('return await tools.add({a: 1, b: 2});', caller);
    expect(result).toMatchObject({ ok: false, error: { kind: 'timeout' } });
    if (!result.ok) expect(result.error.message).toContain('still waiting for add');
    await caller.aborted;
    expect(result.calls).toEqual([expect.objectContaining({ tool: 'add', ok: false, error: 'the run ended before it answered' })]);
    await expectNextRunWorks();
  });

  it('turns a server crashing mid-call into a tool error solve() can catch', async () => {
    const uncaught = await runTimed('return await tools.add({a: 1, b: 2});', crashingCaller());
    expect(uncaught).toMatchObject({ ok: false, error: { kind: 'tool_error' } });
    if (!uncaught.ok) expect(uncaught.error.message).toContain('connection closed');
    const caught = await runTimed("try { await tools.add({a: 1, b: 2}); } catch (e) { return 'fallback'; }", crashingCaller());
    expect(caught).toMatchObject({ ok: true, value: 'fallback' });
    await expectNextRunWorks();
  });

  it('rejects isError results for tools.x and passes them to mcp.call_tool as sent', async () => {
    const failing = () => scriptedCaller(() => ({ content: [{ type: 'text', text: 'quota exceeded' }], isError: true }));
    const rejected = await runTimed("try { await tools.add({a: 1, b: 2}); } catch (e) { return e.name + ': ' + e.message; }", failing());
    expect(rejected).toMatchObject({ ok: true, value: 'ToolError: Tool add failed: quota exceeded' });
    const raw = await runTimed("const r = await mcp.call_tool('add', {a: 1, b: 2}); return [r.isError, r.content[0].text];", failing());
    expect(raw).toMatchObject({ ok: true, value: 'true quota exceeded' });
    expect(raw.calls[0]).toMatchObject({ ok: false, error: 'quota exceeded' });
  });

  it('reports a worker killed mid-run as a crash and starts a fresh one for the next run', async () => {
    let release!: () => void;
    const caller = scriptedCaller(() => {
      const pid = sandbox.workerPid;
      if (pid) process.kill(pid, 'SIGKILL');
      return new Promise((resolve) => { release = () => resolve({ content: [{ type: 'text', text: '1' }] }); });
    });
    const before = sandbox.workerPid;
    const result = await runTimed('return await tools.add({a: 1, b: 2});', caller);
    release();
    expect(result).toMatchObject({ ok: false, error: { kind: 'crash' } });
    if (!result.ok) expect(result.error.message).toContain('SIGKILL');
    await expectNextRunWorks();
    expect(sandbox.workerPid).toBeDefined();
    expect(sandbox.workerPid).not.toBe(before);
  });

  it('serialises runs started together', async () => {
    const results = await Promise.all(
      [1, 2, 3].map((n) => runReply(sandbox, { code: `async function solve() { return await tools.multiply({a: ${n}, b: 10}); }`, tools: TOOLS, caller: arithmeticCaller() })),
    );
    expect(results.map((r) => (r.ok ? r.value : r.error.message))).toEqual(['10', '20', '30']);
  });

  it('answers every run after close() with an error instead of throwing', async () => {
    const closing = createSandbox();
    await closing.close();
    const result = await runReply(closing, { code: 'async function solve() { return 1; }', tools: TOOLS, caller: arithmeticCaller() });
    expect(result).toMatchObject({ ok: false, error: { kind: 'crash' } });
  });

  it('reports a missing worker file as a crash instead of throwing', async () => {
    const broken = createSandbox({ workerPath: '/nonexistent/worker.js' });
    const result = await runReply(broken, { code: 'async function solve() { return 1; }', tools: TOOLS, caller: arithmeticCaller(), limits: TEST_LIMITS });
    expect(result).toMatchObject({ ok: false, error: { kind: 'crash' } });
    await broken.close();
  });
});

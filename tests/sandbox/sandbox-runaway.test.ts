// Runaway code (time, memory, wedging cases from DESIGN §3.1) against the real isolate: each run ends in time.
import { describe, expect, it } from 'vitest';
import type { ProcessSandbox } from '../../src/sandbox/create-sandbox.js';
import type { SandboxLimits } from '../../src/sandbox/types.js';
import { container, TEST_LIMITS } from './contain.js';
import { withMathSandbox, type MathServer } from './math-server.js';

let math: MathServer;
let sandbox: ProcessSandbox;
const { expectError } = container(() => sandbox, () => math);

withMathSandbox((started) => ({ math, sandbox } = started));

/**
 * For the memory bombs: these tests assert which limit ends the run, so the deadline must never be the one, however
 * loaded the machine (catastrophic out-of-memory takes V8 about two seconds of last-resort GCs; filling a WebAssembly
 * memory page by page took longer than 1.5 s at a load average of 13). A run still ends as soon as its memory
 * limit is passed; the deadline is only a backstop, under the test's own timeout.
 */
const MEMORY_LIMITS: SandboxLimits = { ...TEST_LIMITS, timeoutMs: 100_000 };
/** The test timeout of the memory bombs: above MEMORY_LIMITS' deadline. */
const MEMORY_TEST_TIMEOUT_MS = 120_000;

describe('sandbox limits', () => {
  it('stops an infinite synchronous loop at the deadline', async () => {
    const message = await expectError('for (;;) {}', 'timeout');
    expect(message).toContain('did not finish within 1.5 s');
  });

  it('stops a microtask loop (for(;;) await null) at the deadline', async () => {
    await expectError('for (;;) await null;', 'timeout');
  });

  it('stops a loop that starts after a tool call, when the isolate’s own timeout no longer runs', async () => {
    await expectError('await tools.add({a: 1, b: 1}); for (;;) {}', 'timeout');
  });

  it('stops a promise that never settles', async () => {
    await expectError('await new Promise(() => {});', 'timeout');
  });

  it('ends a heap memory bomb as a memory error', async () => {
    const message = await expectError('const a = []; for (;;) a.push(new Array(1e5).fill(a.length));', 'memory', MEMORY_LIMITS);
    expect(message).toContain('64 MB');
  }, MEMORY_TEST_TIMEOUT_MS);

  it('ends a million-key object under 64 MB as a memory error', async () => {
    await expectError("const o = {}; for (let i = 0; i < 1e6; i++) o['k' + i] = i; return Object.keys(o).length;", 'memory', MEMORY_LIMITS);
  }, MEMORY_TEST_TIMEOUT_MS);

  it('ends new Array(60 * 2 ** 20).fill(0) under 64 MB as a memory error', async () => {
    await expectError('return new Array(60 * 2 ** 20).fill(0).length;', 'memory', MEMORY_LIMITS);
  }, MEMORY_TEST_TIMEOUT_MS);

  it('ends a WebAssembly memory filled outside the heap limit as a memory error', async () => {
    await expectError(
      'const m = new WebAssembly.Memory({ initial: 65536 }); const u = new Uint8Array(m.buffer); for (let i = 0; i < u.length; i += 4096) u[i] = 1; return u.length;',
      'memory',
      MEMORY_LIMITS,
    );
  }, MEMORY_TEST_TIMEOUT_MS);

  it('refuses an ArrayBuffer beyond the memory limit', async () => {
    const message = await expectError('return new ArrayBuffer(2 ** 30).byteLength;', 'runtime');
    expect(message).toContain('Array buffer allocation failed');
  });

  it('stops a getter that loops while the result is copied', async () => {
    await expectError('return { get endless() { for (;;) {} } };', 'timeout');
  });

  it('stops a thrown Proxy whose traps loop forever', async () => {
    await expectError(
      'const loop = () => { for (;;) {} }; throw new Proxy({}, { get: loop, getPrototypeOf: loop, ownKeys: loop, has: loop, getOwnPropertyDescriptor: loop });',
      'timeout',
    );
  });

  it('stops Atomics.wait', async () => {
    await expectError('const cell = new Int32Array(new SharedArrayBuffer(4)); Atomics.wait(cell, 0, 0); return 1;', 'timeout');
  });

  it('stops an endless WebAssembly loop', async () => {
    // (module (func (export "f") (loop (br 0))))
    await expectError(
      `const bytes = new Uint8Array([0,97,115,109,1,0,0,0,1,4,1,96,0,0,3,2,1,0,7,5,1,1,102,0,0,10,9,1,7,0,3,64,12,0,11,11]);
       const { exports } = new WebAssembly.Instance(new WebAssembly.Module(bytes));
       exports.f();`,
      'timeout',
    );
  });

  it('stops catastrophic regex backtracking', async () => {
    await expectError("return /^(a+)+$/.test('a'.repeat(40) + 'b');", 'timeout');
  });
});

// Escape attempts against the real isolate and the real math server: each gets nothing of the host.
import { describe, expect, it } from 'vitest';
import type { ProcessSandbox } from '../../src/sandbox/create-sandbox.js';
import { MAX_LOG_CHARS, MAX_LOG_LINES, MAX_TOOL_ARGS_CHARS } from '../../src/sandbox/limits.js';
import { container, TEST_LIMITS } from './contain.js';
import { withMathSandbox, type MathServer } from './math-server.js';

let math: MathServer;
let sandbox: ProcessSandbox;
const { contain, expectError, expectValue } = container(() => sandbox, () => math);

withMathSandbox((started) => ({ math, sandbox } = started));

describe('sandbox escapes', () => {
  it('gives a constructor chain from this only the isolate’s own Function', async () => {
    await expectValue("return this.constructor.constructor('return typeof process')();", 'undefined');
  });

  it('gives the AsyncFunction constructor no host either', async () => {
    await expectValue("return await (async () => {}).constructor('return typeof process + typeof require')();", 'undefinedundefined');
  });

  it('gives the tools and mcp functions no way out', async () => {
    await expectValue(
      "return [tools.add.constructor.constructor('return typeof process')(), mcp.call_tool.constructor('return typeof require')(), tools.constructor.constructor('return typeof fetch')()];",
      'undefined undefined undefined',
    );
  });

  it('returns tool results as isolate copies whose constructors reach nothing', async () => {
    const message = await expectError(
      "const r = await mcp.call_tool('add', {a: 1, b: 2}); return r.constructor.constructor('return process')().pid;",
      'runtime',
    );
    expect(message).toContain('process is not defined');
  });

  it('has no process, require or fetch on globalThis', async () => {
    await expectValue(
      'return [typeof globalThis.process, typeof globalThis.require, typeof globalThis.fetch, typeof globalThis.setTimeout];',
      'undefined undefined undefined undefined',
    );
  });

  it('reports require as missing, with what the sandbox offers instead', async () => {
    const message = await expectError("return require('fs').readFileSync('/etc/passwd', 'utf8');", 'runtime');
    expect(message).toMatch(/require is not defined.*no require, process, fetch/);
  });

  it('refuses dynamic import()', async () => {
    const message = await expectError("const fs = await import('node:fs'); return fs.readFileSync('/etc/passwd', 'utf8');", 'runtime');
    expect(message).toContain('import()');
  });

  it("gives Function('return this') the isolate's bare global", async () => {
    await expectValue(
      "const g = Function('return this')(); return [typeof g.process, typeof g.require, typeof g.tools, g === globalThis];",
      'undefined undefined object true',
    );
  });

  it('keeps prototype pollution inside the isolate, through results and tool arguments', async () => {
    await expectValue(
      `Object.prototype.polluted = true;
       const args = JSON.parse('{"a": 1, "b": 2, "__proto__": {"polluted": true}}');
       const sum = await tools.add(args);
       return JSON.parse('{"__proto__": {"polluted": true}, "result": "sum ' + sum + '"}');`,
      'sum 3',
    );
  });

  it('reports deep recursion as a runtime error', async () => {
    const message = await expectError('function down(n) { return down(n + 1) + 1; } return down(0);', 'runtime');
    expect(message).toContain('Maximum call stack size exceeded');
  });

  it('caps megabytes of console output and still returns the value', async () => {
    const result = await contain("for (let i = 0; i < 100000; i++) console.log('x'.repeat(100)); return 'done';");
    expect(result).toMatchObject({ ok: true, value: 'done' });
    expect(result.logs.length).toBeLessThanOrEqual(MAX_LOG_LINES + 2);
    expect(result.logs.join('').length).toBeLessThanOrEqual(MAX_LOG_CHARS + 400);
    expect(result.logs.at(-1)).toContain('output dropped');
  });

  it('refuses a huge return value with output_limit', async () => {
    const message = await expectError("return 'x'.repeat(256 * 2 ** 20);", 'output_limit');
    expect(message).toContain('268435456 characters');
  });

  it('keeps the value of a run that leaves a looping Proxy rejection unhandled', async () => {
    // isolated-vm copies unhandled rejections after the task; a thread left spinning gets its worker replaced.
    await expectValue(
      "const loop = () => { for (;;) {} }; Promise.reject(new Proxy({}, { get: loop, getPrototypeOf: loop, ownKeys: loop })); return 'kept';",
      'kept',
    );
  });

  it('refuses megabytes of tool arguments inside the isolate, before they are sent', async () => {
    const result = await contain("return await tools.add({a: 1, b: 2, pad: 'x'.repeat(2_000_000)});");
    expect(result).toMatchObject({ ok: false, error: { kind: 'tool_error' } });
    if (!result.ok) expect(result.error.message).toContain(`the limit is ${MAX_TOOL_ARGS_CHARS}`);
    expect(result.calls).toEqual([]);
  });

  it('ends a loop that swallows the call-cap error and keeps calling', async () => {
    const result = await contain('for (;;) { try { await tools.add({a: 1, b: 1}); } catch {} }');
    expect(result.ok ? 'ok' : result.error.kind).toBe('call_cap');
    expect(result.calls.filter((c) => c.ok)).toHaveLength(TEST_LIMITS.maxToolCalls);
  });
});

// The sandbox end to end: the accepted code forms, both call styles and the cap, against the real math server.
import { describe, expect, it } from 'vitest';
import { createSandbox, type ProcessSandbox } from '../../src/sandbox/create-sandbox.js';
import { renderToolCatalogue } from '../../src/sandbox/catalogue.js';
import type { SandboxResult, SandboxRunOptions, ToolCallRecord } from '../../src/sandbox/types.js';
import { TEST_LIMITS } from './contain.js';
import { withMathSandbox, type MathServer } from './math-server.js';
import { runReply } from '../helpers/run-reply.js';

let math: MathServer;
let sandbox: ProcessSandbox;

withMathSandbox((started) => ({ math, sandbox } = started));

function run(code: string, extra: Partial<SandboxRunOptions> = {}): Promise<SandboxResult> {
  return runReply(sandbox, { code, tools: math.tools, caller: math.caller, limits: TEST_LIMITS, ...extra });
}

const BODY = 'const sum = await tools.add({a: 2, b: 3});\n  return `FINAL_ANSWER: ${sum}`;';

describe('sandbox with the math server', () => {
  it.each([
    ['a ```js fence with prose around it', `I'll add them.\n\`\`\`js\nasync function solve() {\n  ${BODY}\n}\n\`\`\`\nThat's it.`],
    ['a ```javascript fence', `\`\`\`javascript\nasync function solve() {\n  ${BODY}\n}\n\`\`\``],
    ['a ```python fence holding JavaScript', `\`\`\`python\nasync function solve() {\n  ${BODY}\n}\n\`\`\``],
    ['unfenced code with prose', `Here is the plan:\n\nasync function solve() {\n  ${BODY}\n}\n\nThis adds two and three.`],
    ['const solve = async () =>', `const solve = async () => {\n  ${BODY}\n};`],
    ['export', `export async function solve() {\n  ${BODY}\n}`],
    ['export default', `export default async function solve() {\n  ${BODY}\n}`],
    ['TypeScript in a ```ts fence', `\`\`\`ts\nasync function solve(): Promise<string> {\n  const sum: number = await tools.add({a: 2, b: 3});\n  return \`FINAL_ANSWER: \${sum}\`;\n}\n\`\`\``],
    ['TypeScript in a ```typescript fence', `\`\`\`typescript\nconst solve = async (): Promise<string> => {\n  const sum = (await tools.add({a: 2, b: 3})) as number;\n  return \`FINAL_ANSWER: \${sum}\`;\n};\n\`\`\``],
  ])('runs %s', async (_form, code) => {
    expect(await run(code)).toMatchObject({ ok: true, value: 'FINAL_ANSWER: 5' });
  });

  it('refuses Python, broken syntax and a missing solve() before any worker starts', async () => {
    const fresh = createSandbox();
    const attempt = (code: string) => runReply(fresh, { code, tools: math.tools, caller: math.caller });
    expect(await attempt('async def solve():\n    return 1')).toMatchObject({ ok: false, error: { kind: 'python' } });
    expect(await attempt('async function solve() { return (1 + ; }')).toMatchObject({ ok: false, error: { kind: 'syntax' } });
    expect(await attempt('async function a() { return 1; }\nasync function b() { return 2; }')).toMatchObject({ ok: false, error: { kind: 'no_solve', problem: 'no_solve' } });
    expect(fresh.workerPid).toBeUndefined();
    await fresh.close();
  });

  it('gives mcp.call_tool the CallToolResult as the server sent it', async () => {
    const result = await run(`async function solve() {
      const r = await mcp.call_tool('multiply', {a: 6, b: 7});
      return [JSON.parse(r.content[0].text).result, r.structuredContent.result, r.content[0].type];
    }`);
    expect(result).toMatchObject({ ok: true, value: '42 42 text' });
  });

  it('solves the INDIA example with tools.x', async () => {
    const result = await run(`async function solve() {
      const codes = await tools.strings_to_chars_to_int({string: 'INDIA'});
      const sum = await tools.int_list_to_exponential_sum({numbers: codes});
      return {result: \`FINAL_ANSWER: \${codes.join(',')} \${sum.toExponential(3)}\`};
    }`);
    const expected = [73, 78, 68, 73, 65].reduce((sum, c) => sum + Math.exp(c), 0).toExponential(3);
    expect(result).toMatchObject({ ok: true, value: `FINAL_ANSWER: 73,78,68,73,65 ${expected}` });
    expect(result.calls.map((c) => [c.tool, c.ok])).toEqual([['strings_to_chars_to_int', true], ['int_list_to_exponential_sum', true]]);
    expect(result.calls[0]?.args).toEqual({ string: 'INDIA' });
  });

  it('runs calls made with Promise.all concurrently and records each', async () => {
    const result = await run(`async function solve() {
      return await Promise.all([tools.add({a: 1, b: 1}), tools.multiply({a: 2, b: 3}), tools.fibonacci_numbers({n: 5}), tools.cbrt({a: 27})]);
    }`);
    expect(result).toMatchObject({ ok: true, value: '2 6 [0,1,1,2,3] 3' });
    expect(result.calls.map((c) => c.tool).sort()).toEqual(['add', 'cbrt', 'fibonacci_numbers', 'multiply']);
  });

  it('rejects call number max+1 with a call_cap error', async () => {
    const result = await run(`async function solve() {
      let total = 0;
      for (let i = 0; i < 6; i++) total = await tools.add({a: total, b: 1});
      return total;
    }`);
    expect(result).toMatchObject({ ok: false, error: { kind: 'call_cap' } });
    if (!result.ok) expect(result.error.message).toContain('at most 5 tool calls');
    expect(result.calls.map((c) => c.ok)).toEqual([true, true, true, true, true, false]);
  });

  it('lets solve() catch the cap error and answer with what it has', async () => {
    const result = await run(`async function solve() {
      let total = 0;
      try { for (let i = 0; i < 10; i++) total = await tools.add({a: total, b: 1}); }
      catch (e) { return 'partial ' + total + ' ' + e.name; }
    }`);
    expect(result).toMatchObject({ ok: true, value: 'partial 5 CallCapError' });
  });

  it('rejects a tool error with the server message, which solve() may catch', async () => {
    const uncaught = await run('async function solve() { return await tools.divide({a: 1, b: 0}); }');
    expect(uncaught).toMatchObject({ ok: false, error: { kind: 'tool_error' } });
    if (!uncaught.ok) expect(uncaught.error.message).toContain('cannot divide 1 by zero');
    const caught = await run("async function solve() { try { await tools.divide({a: 1, b: 0}); } catch (e) { return 'caught: ' + e.message; } }");
    expect(caught).toMatchObject({ ok: true, value: 'caught: Tool divide failed: cannot divide 1 by zero: b must not be 0' });
  });

  it('answers an unknown tool with the closest names', async () => {
    const result = await run('async function solve() { return await tools.ad({a: 1, b: 2}); }');
    expect(result).toMatchObject({ ok: false, error: { kind: 'tool_error' } });
    if (!result.ok) expect(result.error.message).toContain('Unknown tool "ad". Closest: add');
  });

  it('refuses invalid arguments with the right call shape, without calling the server', async () => {
    const result = await run("async function solve() { return await tools.add({x: 1, y: '2'}); }");
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.message).toContain('Call it as tools.add({a: number, b: number})');
    expect(result.calls).toHaveLength(1);
    expect(result.calls[0]).toMatchObject({ ok: false });
  });

  it('unwraps the Python original’s {input: {...}} and accepts positional arguments', async () => {
    const result = await run('async function solve() { return [await tools.add({input: {a: 1, b: 2}}), await tools.power(2, 10)]; }');
    expect(result).toMatchObject({ ok: true, value: '3 1024' });
    expect(result.calls.map((c) => c.args)).toEqual([{ a: 1, b: 2 }, { a: 2, b: 10 }]);
  });

  it('caps console output at the configured output size too', async () => {
    const result = await run("async function solve() { for (let i = 0; i < 50; i++) console.log('0123456789'); return 'done'; }", {
      limits: { ...TEST_LIMITS, maxOutputChars: 100 },
    });
    expect(result).toMatchObject({ ok: true, value: 'done' });
    expect(result.logs.slice(0, -1).join('').length).toBeLessThanOrEqual(100);
    expect(result.logs.at(-1)).toContain('output dropped');
  });

  it('captures console output with the result', async () => {
    const result = await run("async function solve() { console.log('step', 1, {a: [1]}); console.error(new Error('careful')); return 'done'; }");
    expect(result).toMatchObject({ ok: true, value: 'done', logs: ['step 1 {"a":[1]}', '[error] Error: careful'] });
  });

  it('normalises returned values the way the original did', async () => {
    const values = await Promise.all(
      ['{result: "FINAL_ANSWER: 1"}', '{a: 1}', '[1, "b", {c: 2}]', 'undefined', '3.5'].map((v) => run(`async function solve() { return ${v}; }`)),
    );
    expect(values.map((r) => (r.ok ? r.value : r.error.kind))).toEqual(['FINAL_ANSWER: 1', '{"a":1}', '1 b {"c":2}', 'undefined', '3.5']);
  });

  it('holds the result to the configured output size', async () => {
    const result = await run("async function solve() { return 'x'.repeat(150); }", { limits: { ...TEST_LIMITS, maxOutputChars: 100 } });
    expect(result).toMatchObject({ ok: false, error: { kind: 'output_limit' } });
    if (!result.ok) expect(result.error.message).toContain('returned 150 characters; the limit is 100');
  });

  it('does not fail a run whose solve() resolved over a rejection nobody awaited', async () => {
    const result = await run(`async function solve() {
      Promise.reject(new Error('early and ignored'));
      const sum = await tools.add({a: 1, b: 1});
      Promise.reject(new Error('late and ignored'));
      return sum;
    }`);
    expect(result).toMatchObject({ ok: true, value: '2' });
  });

  it('reports a missing solve() found only at run time, and a runtime error with its message', async () => {
    expect(await run('const solve = 42;')).toMatchObject({ ok: false, error: { kind: 'no_solve' } });
    const thrown = await run("async function solve() { throw new TypeError('bad input'); }");
    expect(thrown).toMatchObject({ ok: false, error: { kind: 'runtime' } });
    if (!thrown.ok) expect(thrown.error.message).toContain('TypeError: bad input');
  });

  it('reports each tool call as it starts and ends', async () => {
    const events: Array<[string, string, boolean]> = [];
    const onToolCall = ({ phase, record }: { phase: string; record: ToolCallRecord }) => events.push([phase, record.tool, record.ok]);
    await run('async function solve() { return await tools.add({a: 1, b: 2}); }', { onToolCall });
    expect(events).toEqual([['start', 'add', false], ['end', 'add', true]]);
  });

  it('renders the live tool list as a catalogue the model can call from', () => {
    const catalogue = renderToolCatalogue(math.tools);
    expect(catalogue).toContain('tools.add({a: number, b: number}): Promise<number>');
    expect(catalogue).toContain('tools.strings_to_chars_to_int({string: string}): Promise<number[]>');
    expect(catalogue).toContain('tools.int_list_to_exponential_sum({numbers: number[]}): Promise<number>');
  });
});

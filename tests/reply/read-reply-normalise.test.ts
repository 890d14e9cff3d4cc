// Each normalisation of a reply, alone, over a real parse; and the reply shapes around them.
import { describe, expect, it } from 'vitest';
import { findFencedBlocks, proseFinalAnswer } from '../../src/reply/extract-code.js';
import { readTurn } from '../../src/reply/reply-turn.js';
import {
  addMissingAsync,
  dropShadowingParams,
  keepLastSolve,
  normaliseContext,
  removeSolveCalls,
  unwrapModuleSyntax,
  wrapBareBody,
  type NormaliseContext,
} from '../../src/reply/normalise-code.js';
import { parseCode, type ParsedCode } from '../../src/reply/parse-code.js';
import { repairTypography } from '../../src/reply/repair-typography.js';
import { findJsonReply, planForToolCall } from '../../src/reply/reply-shapes.js';

function parsed(code: string): ParsedCode {
  const p = parseCode(code);
  if (!p.ok) throw new Error(`does not parse: ${p.problem}`);
  return p;
}

function apply(code: string, normalise: (ctx: NormaliseContext) => void): string {
  const ctx = normaliseContext(code, parsed(code));
  normalise(ctx);
  return ctx.edits.toString();
}

describe('keepLastSolve', () => {
  it('removes earlier definitions so the last complete solve wins', () => {
    const code = 'function solve() { return 1; }\nconst x = 2;\nconst solve = async () => 3;';
    expect(apply(code, keepLastSolve)).toBe('\nconst x = 2;\nconst solve = async () => 3;');
  });
});

describe('unwrapModuleSyntax', () => {
  it('drops export in front of solve and removes export statements', () => {
    const code = 'export async function solve() { return 1; }\nexport { solve };\nexport default solve;\nmodule.exports = { solve };\nexports.solve = solve;';
    expect(apply(code, unwrapModuleSyntax).replace(/\s+/g, ' ').trim()).toBe('async function solve() { return 1; }');
  });

  it('names an anonymous default export solve', () => {
    expect(apply('export default () => 1;', unwrapModuleSyntax)).toBe('const solve = () => 1;');
  });
});

describe('removeSolveCalls', () => {
  it('removes every top-level statement that calls solve, including a runner IIFE', () => {
    const code = 'async function solve() { return 1; }\nsolve();\nsolve().then(console.log);\n(async () => { console.log(await solve()); })();\nconsole.log("kept");';
    expect(apply(code, removeSolveCalls).replace(/\n+/g, '\n')).toBe('async function solve() { return 1; }\nconsole.log("kept");');
  });
});

describe('removeSolveCalls with a runner that keeps the answer', () => {
  it('removes `const answer = await solve()` and the statements that use answer', () => {
    const code = 'const K = 2;\nasync function solve() { return K; }\nconst answer = await solve();\nconsole.log(answer);\nconsole.log("kept");';
    expect(apply(code, removeSolveCalls).replace(/\n+/g, '\n')).toBe('const K = 2;\nasync function solve() { return K; }\nconsole.log("kept");');
  });
});

describe('addMissingAsync', () => {
  it('makes a function declaration and an arrow async when they await', () => {
    expect(apply('function solve() { return await tools.a({}); }', addMissingAsync)).toBe('async function solve() { return await tools.a({}); }');
    expect(apply('const solve = () => { return await tools.a({}); };', addMissingAsync)).toBe('const solve = async () => { return await tools.a({}); };');
  });

  it('leaves an async solve alone', () => {
    expect(apply('async function solve() { return 1; }', addMissingAsync)).toBe('async function solve() { return 1; }');
  });
});

describe('dropShadowingParams', () => {
  it('drops parameters named like the sandbox globals', () => {
    expect(apply('async function solve(mcp, tools) { return 1; }', dropShadowingParams)).toBe('async function solve( ) { return 1; }');
    expect(apply('async function solve(tools, n = 2) { return n; }', dropShadowingParams)).toBe('async function solve(n = 2) { return n; }');
    expect(apply('const solve = async tools => 1;', dropShadowingParams)).toBe('const solve = async () => 1;');
    expect(apply('async function solve({ tools }) { return 1; }', dropShadowingParams)).toBe('async function solve( ) { return 1; }');
  });

  it('keeps parameters that shadow nothing', () => {
    expect(apply('async function solve(x = 1) { return x; }', dropShadowingParams)).toBe('async function solve(x = 1) { return x; }');
  });
});

describe('wrapBareBody', () => {
  it('wraps code with a top-level await or return in async function solve()', () => {
    const code = 'const x = await tools.a({});\nreturn "FINAL_ANSWER: " + x;';
    expect(wrapBareBody(code, parsed(code))).toBe(`async function solve() {\n${code}\n}`);
  });

  it('does not wrap code whose awaits are all inside functions', () => {
    const code = 'async function main() { return await tools.a({}); }';
    expect(wrapBareBody(code, parsed(code))).toBeNull();
  });
});

describe('repairTypography', () => {
  it('straightens typographic quotes used as delimiters', () => {
    expect(repairTypography('f(“a b”, ‘c’)')).toBe('f("a b", \'c\')');
  });

  it('keeps typographic quotes inside string literals, templates and comments', () => {
    const code = 'log("say “hi”"); log(`it’s ${“x”}`); // don’t';
    expect(repairTypography(code)).toBe('log("say “hi”"); log(`it’s ${"x"}`); // don’t');
  });

  it('removes invisible characters and turns odd spaces into spaces outside literals', () => {
    expect(repairTypography('a\u200B +\u00A0b; "\u00A0"')).toBe('a + b; "\u00A0"');
  });
});

describe('findFencedBlocks', () => {
  it('closes a fence where the code parses, not at a ``` inside a comment', () => {
    const text = '```js\n/*\n```\nexample\n```\n*/\nconst x = 1;\n```\nprose';
    const blocks = findFencedBlocks(text);
    expect(blocks).toHaveLength(1);
    expect(blocks[0]!.code).toBe('/*\n```\nexample\n```\n*/\nconst x = 1;');
  });

  it('ignores ``` in the middle of a line (a string holding a fence)', () => {
    const text = '```js\nconst f = "```";\nconst g = `${f}x${"```"}`;\n```';
    expect(findFencedBlocks(text).map((b) => b.code)).toEqual(['const f = "```";\nconst g = `${f}x${"```"}`;']);
  });

  it('runs a fence never closed to the end of the reply, marked not closed', () => {
    expect(findFencedBlocks('```js\nconst a = 1;\n')).toEqual([{ label: 'js', code: 'const a = 1;\n', closed: false, fenced: true }]);
  });
});

describe('JSON tool calls', () => {
  it.each([
    ['{"tool": "add", "arguments": {"a": 1}}'],
    ['{"name": "add", "args": {"a": 1}}'],
    ['{"name": "add", "parameters": {"a": 1}}'],
    ['{"function": {"name": "add", "arguments": "{\\"a\\": 1}"}}'],
    ['{"tool_calls": [{"function": {"name": "add", "arguments": {"a": 1}}}]}'],
    ['{"action": "add", "action_input": {"a": 1}}'],
  ])('reads %s as one call', (text) => {
    expect(findJsonReply(text, [])).toEqual({ kind: 'call', tool: 'add', args: { a: 1 } });
  });

  it('reports the keys of JSON that is not a tool call', () => {
    expect(findJsonReply('{"a": 2, "b": 3}', [])).toEqual({ kind: 'unknown', keys: ['a', 'b'] });
  });

  it('turns a call into a plan whose result goes to the next step', () => {
    expect(planForToolCall('odd-name', { q: 'x' })).toContain('await tools["odd-name"]({"q":"x"})');
    expect(planForToolCall('add', {})).toContain('"FURTHER_PROCESSING_REQUIRED: "');
  });
});

describe('proseFinalAnswer', () => {
  it('reads the last FINAL_ANSWER line, markdown and all', () => {
    expect(proseFinalAnswer('Thinking…\nFINAL_ANSWER: Paris')).toBe('Paris');
    expect(proseFinalAnswer('**FINAL_ANSWER:** `42`')).toBe('`42`');
    expect(proseFinalAnswer('**FINAL_ANSWER: 42**')).toBe('42');
    expect(proseFinalAnswer('- `FINAL_ANSWER`: Paris')).toBe('Paris');
    expect(proseFinalAnswer('FINAL_ANSWER: 1\nno wait\nFINAL_ANSWER: 2')).toBe('2');
  });

  it('keeps the closing backtick of a code span when bold ends the first line', () => {
    expect(proseFinalAnswer('FINAL_ANSWER: **Use `npm test`**')).toBe('**Use `npm test`**');
    expect(proseFinalAnswer('FINAL_ANSWER: `npm test` runs them\nthen `npm run build`')).toBe('`npm test` runs them\nthen `npm run build`');
  });

  it('ignores a line that merely returns it in code, and a reasoning block', () => {
    expect(proseFinalAnswer('return "FINAL_ANSWER: " + x;')).toBeNull();
    expect(proseFinalAnswer(readTurn('<think>\nFINAL_ANSWER: draft\n</think>\nno answer').text)).toBeNull();
  });
});

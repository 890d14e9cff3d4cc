import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { readReply } from '../../src/reply/read-reply.js';

function code(text: string): string {
  const prepared = readReply(text);
  if (!prepared.ok) throw new Error(`expected code, got ${prepared.error.kind}: ${prepared.error.message}`);
  return prepared.code;
}

function errorOf(text: string): { kind: string; message: string } {
  const prepared = readReply(text);
  if (prepared.ok) throw new Error(`expected an error, got code:\n${prepared.code}`);
  return prepared.error;
}

const SOLVE = 'async function solve() {\n  return await tools.add({a: 1, b: 2});\n}';

describe('readReply', () => {
  it('passes plain code through unchanged', () => {
    expect(code(SOLVE)).toBe(SOLVE);
  });

  it.each(['js', 'javascript', 'ts', 'typescript', 'python', 'JavaScript', ''])('extracts code from a ```%s fence', (label) => {
    expect(code(`Here is my plan:\n\n\`\`\`${label}\n${SOLVE}\n\`\`\`\n\nIt adds the numbers.`).trim()).toBe(SOLVE);
  });

  it('takes the fence that defines solve when there are several', () => {
    const text = `Usage:\n\`\`\`js\nconsole.log(await solve());\n\`\`\`\nCode:\n\`\`\`js\n${SOLVE}\n\`\`\``;
    expect(code(text).trim()).toBe(SOLVE);
  });

  it('accepts a fence the answer never closed', () => {
    expect(code(`\`\`\`javascript\n${SOLVE}\n`).trim()).toBe(SOLVE);
  });

  it('strips prose before and after unfenced code', () => {
    const text = `Sure! I will add the numbers.\n\n${SOLVE}\n\nThis returns the sum of both numbers.`;
    expect(code(text).trim()).toBe(SOLVE);
  });

  it('accepts const solve = async () =>', () => {
    expect(code('const solve = async () => {\n  return 42;\n};')).toContain('const solve = async () =>');
  });

  it('drops export and export default in front of solve', () => {
    expect(code(`export ${SOLVE}`).trim()).toBe(SOLVE);
    expect(code(`export default ${SOLVE}`).trim()).toBe(SOLVE);
    expect(code('export const solve = async () => 1;').trim()).toBe('const solve = async () => 1;');
  });

  it('names an anonymous default export solve', () => {
    expect(code('export default async function () { return 1; }')).toMatch(/const solve = async function \(\)/);
    expect(code('export default async () => 1;')).toMatch(/const solve = async \(\) => 1/);
  });

  it('removes export lists, module.exports and top-level calls of solve', () => {
    const text = `${SOLVE}\nexport { solve };\nmodule.exports = { solve };\nsolve().then(console.log);\nconsole.log(await solve());`;
    expect(code(text).trim()).toBe(SOLVE);
  });

  it('transpiles TypeScript annotations away', () => {
    const ts = [
      'interface Sum { total: number }',
      'type Pair = [number, number];',
      'async function solve(): Promise<string> {',
      '  const pair: Pair = [1, 2];',
      '  const sum: Sum = { total: (await tools.add({ a: pair[0], b: pair[1] })) as number };',
      '  return `FINAL_ANSWER: ${sum.total}`;',
      '}',
    ].join('\n');
    const js = code(`\`\`\`ts\n${ts}\n\`\`\``);
    expect(js).not.toMatch(/interface|: Promise<string>|as number/);
    expect(js).toContain('async function solve()');
  });

  it('refuses Python with a request for JavaScript', () => {
    const error = errorOf('```python\nasync def solve():\n    return await tools.add(a=1, b=2)\n```');
    expect(error.kind).toBe('python');
    expect(error.message).toContain('JavaScript');
    expect(error.message).toContain('async function solve()');
  });

  it('runs JavaScript that sits in a fence labelled python', () => {
    expect(code(`\`\`\`python\n${SOLVE}\n\`\`\``).trim()).toBe(SOLVE);
  });

  it('reports a syntax error with line and column', () => {
    const error = errorOf('async function solve() {\n  const x = ;\n  return x;\n}');
    expect(error.kind).toBe('syntax');
    expect(error.message).toMatch(/line 2, column \d+/);
  });

  it('reports missing solve() when no single entry point stands in for it', () => {
    const error = errorOf('async function a() { return 1; }\nasync function b() { return 2; }');
    expect(error.kind).toBe('no_solve');
    expect(error.message).toContain('solve()');
  });

  it('runs the one function nothing else calls as solve (codemode does), and only once', () => {
    const out = code('function fmt(n) { return "FINAL_ANSWER: " + n; }\nasync function main() { return fmt(await tools.add({ a: 2, b: 3 })); }\nmain();');
    expect(out).toContain('async function solve()');
    expect(out).not.toMatch(/^main\(\);/m);
  });

  it('refuses imports with a pointer to the global tools object', () => {
    const error = errorOf(`import fs from 'node:fs';\n${SOLVE}`);
    expect(error.kind).toBe('syntax');
    expect(error.message).toContain('`tools`');
  });

  it('refuses an answer too long to be a plan', () => {
    expect(errorOf(`${SOLVE}\n//${'x'.repeat(300_000)}`).kind).toBe('syntax');
  });

  it('never executes the code it checks', () => {
    const marker = '__prepareCodeRan';
    code(`globalThis.${marker} = true;\n${SOLVE}`);
    expect((globalThis as Record<string, unknown>)[marker]).toBeUndefined();
  });
});

describe('readReply on bad input', () => {
  const SEND = 'Reply with one ```javascript block holding `async function solve()';

  it.each([
    ['a 1 MB reply', `\`\`\`js\nasync function solve() { return "${'x'.repeat(1_048_576)}"; }\n\`\`\``, /Your reply is \d+ characters; the limit is/],
    ['a whitespace-only reply', ' \n\t \n', /Your reply was empty/],
    ['code the parser gives up on', 'async function solve() {\n  const x = await tools.add({a: 1', /cut off at line 2/],
    ['a Rust reply', '```rust\nfn main() { println!("hi"); }\n```', /Your reply is Rust, not JavaScript/],
    ['a shell command', '```bash\ncurl -s http://x -d \'{"a": 1}\'\n```', /Your reply is a shell command/],
    ['Python', '```python\ndef solve():\n    return 1\n```', /Your reply is Python/],
    ['a module import', 'import fs from "node:fs";\nasync function solve() { return 1; }', /loads modules \(import "node:fs"\)/],
    ['prose with no code', 'I cannot help with that request, sorry.', /holds no code and no "FINAL_ANSWER:" line/],
  ])('refuses %s with a message saying what to send back, never throwing', (_what, text, message) => {
    const error = errorOf(text);
    expect(error.message).toMatch(message);
    expect(error.message).toContain(SEND);
  });

  it('names the functions a reply defined instead of solve', () => {
    expect(errorOf('async function a() { return 1; }\nasync function b() { return 2; }').message).toContain('It defines a(), b() and none of them is clearly the entry point');
  });

  it('runs the last of several solve() blocks, the one the model corrected', () => {
    const text = '```js\nasync function solve() { return "FINAL_ANSWER: 4"; }\n```\nOops, fixed:\n```js\nasync function solve() { return "FINAL_ANSWER: 5"; }\n```';
    expect(code(text)).toContain('FINAL_ANSWER: 5');
  });

  it('turns a prose FINAL_ANSWER with no code into a plan returning it', () => {
    expect(code('No tool is needed.\n\nFINAL_ANSWER: Paris')).toContain('return "FINAL_ANSWER: Paris";');
  });

  it('wraps a bare body with top-level await in async function solve()', () => {
    expect(code('const p = await tools.multiply({a: 6, b: 7});\nreturn "FINAL_ANSWER: " + p;')).toMatch(/^async function solve\(\) \{/);
  });
});

describe('readReply never throws', () => {
  const pieces = ['```js\n', '```\n', 'async function solve() {', '}', 'await tools.add({a: 1})', '“', '”', '\u200B', 'FINAL_ANSWER: ', '{"tool": "x"', 'def f():', '`${', 'return ', '\n', 'import x from "y";', '/*', '*/', '<think>'];
  it('answers every reply built from code fragments with code or a message', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.constantFrom(...pieces), fc.string()), { maxLength: 30 }), (parts) => {
        const prepared = readReply(parts.join(''));
        expect(prepared.ok ? prepared.code.length : prepared.error.message.length).toBeGreaterThan(0);
      }),
      { numRuns: 300 },
    );
  });
});

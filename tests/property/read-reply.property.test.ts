// Property: readReply never throws, and answers {ok: true, code} or {ok: false, error: {kind, message}} for any reply a model could send.
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { MAX_CODE_CHARS, readReply } from '../../src/reply/read-reply.js';
import { check, hostileText, RUNS, tallyLine } from './property-settings.js';

/** Bound: replies of at most 400 tokens (~4 KB), plus one just past MAX_CODE_CHARS; readReply compiles once and transpiles at most once. */
const MAX_TOKENS = 400;

const CODE_TOKENS = [
  '```', '```js\n', '```typescript\n', '```python\n', '\n', '  ', 'async function solve() {', 'function solve() {', 'const solve = async () => {',
  'export default ', 'export ', '}', '{', '(', ')', '[', ']', '`', '${', '/*', '*/', '//', '"', "'", 'FINAL_ANSWER: ', 'FURTHER_PROCESSING_REQUIRED',
  'import x from "y";\n', 'import type { T } from "t";\n', 'await ', 'return ', '=>', ';', 'def solve():\n', '<script>', 'tools.add({a: 1, b: 2})',
  'mcp.call_tool("x", {})', 'let x: number = 1;', 'interface A { b: string }', 'as const', '</', '\u2028', '\uFEFF', '\\', 'yield', 'class ', 'new ',
  'while (true) {}', '#!/usr/bin/env node\n', '<!--', '-->', 'solve', 'Here is the plan:\n',
];

const SOLVE = 'async function solve() { return "FINAL_ANSWER: 1"; }';

function wellFormed(reply: string): void {
  const prepared = readReply(reply);
  if (prepared.ok) {
    expect(typeof prepared.code).toBe('string');
    expect(prepared.code.length).toBeGreaterThan(0);
  } else {
    expect(typeof prepared.error.kind).toBe('string');
    expect(typeof prepared.error.message).toBe('string');
    expect(prepared.error.message.length).toBeGreaterThan(0);
  }
}

afterAll(() => console.log(`prepare-code properties: ${tallyLine()}`));

describe('readReply, property-based', () => {
  it('never throws on hostile replies and always answers in its contract shape', async () => {
    await check('readReply hostile replies', fc.property(hostileText(CODE_TOKENS, MAX_TOKENS), wellFormed), RUNS.pure);
  });

  it('never throws when a working solve() is wrapped in random prose and fences', async () => {
    await check(
      'readReply solve in noise',
      fc.property(hostileText(CODE_TOKENS, 40), hostileText(CODE_TOKENS, 40), (before, after) => wellFormed(`${before}\n\`\`\`js\n${SOLVE}\n\`\`\`\n${after}`)),
      RUNS.pure,
    );
  });

  it('refuses a reply past the size limit without parsing it', () => {
    const prepared = readReply('x'.repeat(MAX_CODE_CHARS + 1));
    expect(prepared).toMatchObject({ ok: false, error: { kind: 'syntax' } });
  });
});

// Telling a reply was cut mid-code, and joining its continuation.
import { describe, expect, it } from 'vitest';
import { readReply } from '../../src/reply/read-reply.js';
import { endsMidCode, joinContinuation } from '../../src/reply/reply-continuation.js';

const HEAD = 'Here is the plan.\n```javascript\nasync function solve() {\n  const sum = await tools.add({ a: 2, b: 3 });\n';
const TAIL = '  return "FINAL_ANSWER: " + sum;\n}\n```\n';

describe('endsMidCode', () => {
  it('is true for a fenced block cut before its code is complete', () => {
    expect(endsMidCode(HEAD)).toBe(true);
    expect(endsMidCode(`${HEAD}  return "FINAL_AN`)).toBe(true);
  });

  it('is false for a complete reply, a block that parses without its closing fence, and prose', () => {
    expect(endsMidCode(HEAD + TAIL)).toBe(false);
    expect(endsMidCode(HEAD + TAIL.replace('```\n', ''))).toBe(false);
    expect(endsMidCode('FINAL_ANSWER: 5')).toBe(false);
    expect(endsMidCode('```javascript\n')).toBe(false);
  });

  it('tells a closed block that does not parse (read as written, not continued) from a block cut off after a complete one', () => {
    expect(endsMidCode(`${HEAD}  return "FINAL_AN\n\`\`\`\n`)).toBe(false);
    expect(endsMidCode(`${HEAD + TAIL}\nAnd again:\n${HEAD}`)).toBe(true);
  });
});

describe('joinContinuation', () => {
  it('appends a continuation that goes on from the next character', () => {
    const joined = joinContinuation(`${HEAD}  return "FINAL_AN`, 'SWER: " + sum;\n}\n```\n');
    expect(joined).toBe(HEAD + TAIL);
    expect(readReply(joined).ok).toBe(true);
  });

  it('writes once what the continuation repeats of the end of the cut reply', () => {
    const joined = joinContinuation(HEAD, '  const sum = await tools.add({ a: 2, b: 3 });\n' + TAIL);
    expect(joined).toBe(HEAD + TAIL);
  });

  it('drops a new ``` line when the continuation resumes the open block', () => {
    const joined = joinContinuation(HEAD, '```javascript\n' + TAIL);
    expect(joined).toBe(HEAD + TAIL);
    expect(readReply(joined)).toMatchObject({ ok: true, code: expect.stringContaining('tools.add') });
  });

  it('closes the cut block when the continuation starts the code again, so the new block is read whole', () => {
    const again = '```javascript\nasync function solve() {\n  return "FINAL_ANSWER: " + (await tools.add({ a: 2, b: 3 }));\n}\n```\n';
    const joined = joinContinuation(HEAD, again);
    const prepared = readReply(joined);
    expect(prepared).toMatchObject({ ok: true });
    expect(prepared.ok && prepared.code).toContain('return "FINAL_ANSWER: " + (await tools.add');
  });
});

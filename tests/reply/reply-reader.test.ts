// The reply reader's classes of shapes (issue 22), each on its own: the model's turn, entry points, runners, JSON, truncation, Python.
import { describe, expect, it } from 'vitest';
import { findCodeBlocks, proseFinalAnswer } from '../../src/reply/extract-code.js';
import { findEntryPoint } from '../../src/reply/entry-point.js';
import { parseCode, type ParsedCode } from '../../src/reply/parse-code.js';
import { readReply } from '../../src/reply/read-reply.js';
import { findJsonReply, looksLikePython } from '../../src/reply/reply-shapes.js';
import { modelWords, readTurn } from '../../src/reply/reply-turn.js';

const SOLVE = 'async function solve() {\n  return "FINAL_ANSWER: " + (await tools.add({ a: 2, b: 3 }));\n}';
const DRAFT = 'async function solve() { return "FINAL_ANSWER: draft"; }';

function code(text: string): string {
  const prepared = readReply(text);
  if (!prepared.ok) throw new Error(`expected code, got ${prepared.error.problem}: ${prepared.error.message}`);
  return prepared.code;
}

function problemOf(text: string): string | undefined {
  const prepared = readReply(text);
  if (prepared.ok) throw new Error(`expected a refusal, got code:\n${prepared.code}`);
  return prepared.error.problem;
}

function parsed(text: string): ParsedCode {
  const p = parseCode(text);
  if (!p.ok) throw new Error(p.problem);
  return p;
}

describe('readTurn', () => {
  it('removes reasoning in every tag form', () => {
    expect(readTurn('<think>a</think>answer').text).toBe('answer');
    expect(readTurn('<thinking>a</thinking>answer').text).toBe('answer');
    expect(readTurn('<reasoning>a</reasoning>answer').text).toBe('answer');
    expect(readTurn('<THINK>a</THINK>answer').text).toBe('answer');
  });

  it('treats everything before a lone closing tag as reasoning (DeepSeek-R1 templates open the block in the prompt)', () => {
    expect(readTurn(`draft\n\`\`\`js\n${DRAFT}\n\`\`\`\n</think>\nFINAL_ANSWER: Paris`).text).toBe('\nFINAL_ANSWER: Paris');
  });

  it('treats everything after an unclosed opening tag as reasoning, and says the reply ended inside it', () => {
    expect(readTurn(`<think>\n\`\`\`js\n${DRAFT}\n\`\`\`\nwait`)).toMatchObject({ text: '', stillReasoning: true });
  });

  it('drops a hallucinated next turn: role lines outside code and chat-template tokens', () => {
    expect(readTurn('mine\nUser: next question\nAssistant: more').text).toBe('mine');
    expect(readTurn('mine\nObservation: 6\nThought: so 6').text).toBe('mine');
    expect(readTurn('mine<|im_end|>\n<|im_start|>user\nq').text).toBe('mine');
    expect(readTurn('mine\n### Instruction:\nmore').text).toBe('mine');
  });

  it('keeps a role word inside a code fence and an indented object key', () => {
    const text = '```js\nconst text = `\nUser: x`;\n```\n  User: 1';
    expect(readTurn(text).text).toBe(text);
  });

  it('reads a reply that echoes the user turn from its "Assistant:" line', () => {
    expect(readTurn('User: capital of France?\nAssistant: FINAL_ANSWER: Paris').text).toBe('FINAL_ANSWER: Paris');
  });

  it('reads <code>, <execute> and <tool_code> wrappers as fences, and execute_ipython as Python', () => {
    expect(readTurn(`<code>\n${SOLVE}\n</code>`).text).toBe(`\`\`\`\n${SOLVE}\n\`\`\``);
    expect(readTurn('<execute_ipython>\nprint(1)\n</execute_ipython>').text).toContain('```python');
  });
});

describe('modelWords', () => {
  it('is what the model said, reasoning removed, shortened for a person', () => {
    expect(modelWords('<think>secret plan</think>\nI need more context.')).toBe('I need more context.');
    const long = modelWords('word '.repeat(200));
    expect(long.length).toBeLessThanOrEqual(300);
    expect(long.endsWith('…')).toBe(true);
  });
});

describe('findCodeBlocks', () => {
  it('reads a language word alone on the first line of an unlabelled fence as its label', () => {
    expect(findCodeBlocks(`\`\`\`\njavascript\n${SOLVE}\n\`\`\``)).toMatchObject([{ label: 'javascript', code: SOLVE }]);
  });

  it('reads the code around a lone or empty fence pair', () => {
    expect(findCodeBlocks(`${SOLVE}\n\`\`\``)).toMatchObject([{ code: SOLVE, fenced: false }]);
    expect(findCodeBlocks(`\`\`\`js\n\`\`\`\n${SOLVE}\n\`\`\``)).toMatchObject([{ code: SOLVE }]);
  });

  it('reads a block whole when its code holds a fence inside a string or a template literal', () => {
    const quoted = '```javascript\nasync function solve() {\n  const lines = [\n    "```json",\n    "{}",\n    "```",\n  ];\n  return "FINAL_ANSWER: " + lines.length;\n}\n```\nThat is all.';
    expect(findCodeBlocks(quoted)).toEqual([{ label: 'javascript', code: quoted.split('\n').slice(1, 9).join('\n'), closed: true, fenced: true }]);
    // A markdown fence in a template literal, left unescaped by the model, is read as text of the literal.
    const template = '```javascript\nasync function solve() {\n  const md = `Result:\n```json\n{"a": 1}\n```\n`;\n  return "FINAL_ANSWER: " + md;\n}\n```\nDone.';
    const [block, ...rest] = findCodeBlocks(template);
    expect(rest).toEqual([]);
    expect(block).toMatchObject({ closed: true, code: expect.stringContaining('\\`\\`\\`json\n{"a": 1}\n\\`\\`\\`\n`;') });
    const prepared = readReply(template);
    expect(prepared.ok).toBe(true);
  });

  it('drops prose after the code of a fence never closed', () => {
    expect(findCodeBlocks(`\`\`\`js\n${SOLVE}\n\nThis calls the add tool once.`)).toMatchObject([{ code: SOLVE, closed: false }]);
  });

  it('finds unfenced code after prose by where the rest parses, keeping an `export default async () =>` first line', () => {
    const arrow = 'export default async () => {\n  return 1;\n};';
    expect(findCodeBlocks(`Here is the code:\n\n${arrow}`)[0]!.code.trim()).toBe(arrow);
  });
});

describe('proseFinalAnswer', () => {
  it('is everything after FINAL_ANSWER: to the end of the turn, markdown kept', () => {
    expect(proseFinalAnswer('FINAL_ANSWER:\n| a |\n|---|\n| 5 |\n\n- five')).toBe('| a |\n|---|\n| 5 |\n\n- five');
  });

  it('ignores a FINAL_ANSWER line inside a code fence', () => {
    expect(proseFinalAnswer('```js\nconst t = 5;\nFINAL_ANSWER: ${t}\n```')).toBeNull();
  });
});

describe('findEntryPoint', () => {
  it('makes an anonymous async function, an async IIFE, or the one function nothing else uses the entry point', () => {
    expect(findEntryPoint('async () => { return 1; }', parsed('async () => { return 1; }'))?.code).toBe('const solve = async () => { return 1; };');
    const iife = '(async () => { return 1; })();';
    expect(findEntryPoint(iife, parsed(iife))?.code).toBe('const solve = async () => { return 1; };');
    const two = 'function fmt(n) { return "x" + n; }\nasync function main() { return fmt(1); }';
    expect(findEntryPoint(two, parsed(two))).toEqual({ code: two.replace('function main', 'function solve'), aliases: ['main'] });
  });

  it('finds none when two functions could be the entry point', () => {
    const two = 'async function a() { return 1; }\nasync function b() { return 2; }';
    expect(findEntryPoint(two, parsed(two))).toBeNull();
  });
});

describe('readReply', () => {
  it('removes every runner of solve, so solve runs exactly once', () => {
    for (const runner of [
      'async function main() { console.log(await solve()); }\nmain();',
      'const main = async () => { await solve(); };\nmain().catch(console.error);',
      'if (require.main === module) { solve().then(console.log); }',
      'async function run() { return await solve(); }\nrun().then(console.log);',
    ]) {
      const out = code(`${SOLVE}\n${runner}`);
      expect(out.match(/solve\(\)/g)).toHaveLength(1);
      expect(out).not.toMatch(/main|run\(|require/);
    }
  });

  it('keeps a helper that solve uses even when it calls solve back', () => {
    const out = code('function again(n) { return n > 0 ? solve(n - 1) : "FINAL_ANSWER: done"; }\nasync function solve(n = 2) { return again(n); }');
    expect(out).toContain('function again');
  });

  it('puts helpers from an earlier block in front of the solve() that uses them', () => {
    const out = code('```js\nfunction asAnswer(v) { return "FINAL_ANSWER: " + v; }\n```\n```js\nasync function solve() { return asAnswer(1); }\n```');
    expect(out).toContain('function asAnswer');
  });

  it('returns the last expression of a bare body (codemode rule)', () => {
    expect(code('const p = await tools.add({ a: 2, b: 3 });\n"FINAL_ANSWER: " + p')).toContain('return "FINAL_ANSWER: " + p');
  });

  it('names truncation anywhere, a stray fence line, a diff, several JSON calls and reasoning cut off', () => {
    expect(problemOf('```js\nasync function solve() {\n  return "FINAL_ANS')).toBe('truncated');
    expect(problemOf('async function solve() {\n  /* the sum of')).toBe('truncated');
    expect(problemOf('```js\nasync function solve() {\n  const s = 1;\n```\n  return s;\n}')).toBe('unpaired_fence');
    expect(problemOf('```diff\n@@ -1 +1 @@\n-a\n+b\n```')).toBe('diff');
    expect(problemOf('{"name": "add", "arguments": {"a": 1, "b": 2}}; {"name": "add", "arguments": {"a": 3, "b": 4}}')).toBe('several_tool_calls');
    expect(problemOf('<think>\nI will write solve() with the add tool and')).toBe('still_reasoning');
  });

  it('names Python, also Python without def and Python that parses as JavaScript', () => {
    expect(problemOf('```python\nx = add(2, 3)\nprint(x)\n```')).toBe('python');
    expect(problemOf('```\ntotal = 0\nfor n in [2, 3]:\n    total += n\n```')).toBe('python');
    expect(problemOf('[add(a=2, b=3)]')).toBe('python');
  });

  it('gives every refusal a plain one-line diagnosis apart from the message for the model', () => {
    const prepared = readReply('```python\nprint(1)\n```');
    expect(prepared).toMatchObject({ ok: false, error: { diagnosis: 'The model wrote Python; only JavaScript can run.' } });
  });
});

describe('findJsonReply', () => {
  it('reads one call among prose and braces, and counts several', () => {
    expect(findJsonReply('{"name": "add", "arguments": {"a": 2, "b": 3}}\nIt returns {"result": 5}.', [])).toMatchObject({ kind: 'call', tool: 'add' });
    expect(findJsonReply('<tool_call>{"name": "a", "arguments": {}}</tool_call><tool_call>{"name": "b", "arguments": {}}</tool_call>', [])).toEqual({
      kind: 'several',
      tools: ['a', 'b'],
    });
  });
});

describe('looksLikePython', () => {
  it('does not take JavaScript default parameters for keyword arguments', () => {
    expect(looksLikePython({ label: '', code: 'async function solve(x = 1) { return x; }', closed: true, fenced: false })).toBe(false);
  });
});

describe('readTurn on hostile input', () => {
  it('stays bounded on a reply of nothing but template tokens', () => {
    expect(readTurn('<|im_end|>'.repeat(15_000)).text).toBe('');
    expect(readReply('<|im_start|>'.repeat(15_000))).toMatchObject({ ok: false, error: { problem: 'no_code' } });
  });
});

describe('findJsonReply on hostile input', () => {
  it('tries a bounded number of braces in a reply full of them', () => {
    expect(findJsonReply('{'.repeat(150_000), [])).toBeNull();
    expect(findJsonReply('{"a": '.repeat(30_000), [])).toBeNull();
  });
});

// Property: whatever surrounds the model's own turn (reasoning, a hallucinated next turn) never changes what runs, and every refusal has a plain one-line diagnosis.
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { readReply } from '../../src/reply/read-reply.js';
import { check, hostileText, RUNS, tallyLine } from './property-settings.js';

/** Bound: texts of at most 200 tokens around one small solve(). */
const MAX_TOKENS = 200;
const TOKENS = [
  '```', '```js\n', '```python\n', '\n', ' ', 'async function solve() {', '}', '{', 'return ', '"FINAL_ANSWER: 2"', 'FINAL_ANSWER: ', 'await ', ';',
  'def solve():\n', 'User: ', 'Observation: ', '<think>', '</think>', '<|im_end|>', '<|im_start|>user\n', 'tools.add({a: 1, b: 2})', 'main();', 'words ',
];
const SOLVE = 'async function solve() { return "FINAL_ANSWER: 1"; }';
const FENCED = `\`\`\`javascript\n${SOLVE}\n\`\`\``;
const expected = readReply(FENCED);

afterAll(() => console.log(`reply-turn properties: ${tallyLine()}`));

describe('the model turn, property-based', () => {
  it('runs the same code whatever reasoning block comes first', async () => {
    const reasoning = hostileText(TOKENS.filter((t) => !t.includes('think')), MAX_TOKENS);
    await check('paired reasoning before the answer', fc.property(reasoning, (r) => {
      expect(readReply(`<think>${r}</think>\n${FENCED}`)).toEqual(expected);
    }), RUNS.pure);
    // A lone closing tag is judged within the model's own turn, so this reasoning holds no turn markers.
    const ownReasoning = hostileText(TOKENS.filter((t) => !/think|User|Observation|<\|/.test(t)), MAX_TOKENS);
    await check('lone-closed reasoning before the answer', fc.property(ownReasoning, (r) => {
      expect(readReply(`${r}\n</think>\n${FENCED}`)).toEqual(expected);
    }), RUNS.pure);
  });

  it('runs the same code whatever follows a hallucinated next turn', async () => {
    await check(
      'text after another turn',
      fc.property(hostileText(TOKENS, MAX_TOKENS), fc.constantFrom('\nUser: ', '\nHuman: ', '\nObservation: ', '<|im_end|>', '<|eot_id|>'), (after, marker) => {
        expect(readReply(`${FENCED}${marker}${after}`)).toEqual(expected);
      }),
      RUNS.pure,
    );
  });

  it('gives every refusal a problem and a one-line diagnosis that is not an instruction to the model', async () => {
    await check(
      'refusals diagnosed',
      fc.property(hostileText(TOKENS, MAX_TOKENS), (reply) => {
        const prepared = readReply(reply);
        if (prepared.ok) return;
        expect(typeof prepared.error.problem).toBe('string');
        expect(prepared.error.diagnosis).toBeTruthy();
        expect(prepared.error.diagnosis).not.toMatch(/Reply with one|send the whole/);
      }),
      RUNS.pure,
    );
  });
});

// Property: an answer written as a prose FINAL_ANSWER line keeps its own markdown: every inline code span survives whole.
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { proseFinalAnswer } from '../../src/reply/extract-code.js';
import { check, RUNS, tallyLine } from './property-settings.js';

/** Bound: answers of at most 6 pieces, each a short word or code span. */
const MAX_PIECES = 6;
const WORD = fc.stringMatching(/^[A-Za-z0-9 .,:()-]{1,12}$/);
/** A code span: backticks around text that holds none. */
const CODE_SPAN = fc.stringMatching(/^[A-Za-z0-9 ._/=-]{1,12}$/).filter((t) => t.trim() !== '').map((t) => `\`${t.trim()}\``);
/** An answer with at least one code span, wrapped or not in bold or italics. */
const ANSWER = fc
  .tuple(fc.array(fc.oneof(WORD, CODE_SPAN), { maxLength: MAX_PIECES }), CODE_SPAN, fc.array(fc.oneof(WORD, CODE_SPAN), { maxLength: MAX_PIECES }), fc.constantFrom('', '**', '*', '__', '_'))
  .map(([before, span, after, wrap]) => `${wrap}${[...before, span, ...after].join(' ').replace(/\s+/g, ' ').trim()}${wrap}`);
/** How models write the key: plain, bold, in backticks, in a list or a quote. */
const KEY = fc.constantFrom('FINAL_ANSWER:', '**FINAL_ANSWER:**', '**FINAL_ANSWER**:', '`FINAL_ANSWER`:', '- FINAL_ANSWER:', '> **FINAL_ANSWER:**', '## FINAL_ANSWER:');

const spans = (text: string) => text.match(/`[^`]+`/g) ?? [];

afterAll(() => console.log(`final-answer markdown properties: ${tallyLine()}`));

describe('proseFinalAnswer, property-based', () => {
  it('keeps the answer on the first line exactly as written, code spans and bold included', async () => {
    await check('first-line answer kept', fc.property(KEY, ANSWER, (key, answer) => {
      expect(proseFinalAnswer(`Done.\n${key} ${answer}`)).toBe(answer);
    }), RUNS.pure);
  });

  it('keeps every code span of a multi-line answer', async () => {
    await check('code spans across lines', fc.property(KEY, fc.array(ANSWER, { minLength: 1, maxLength: 3 }), (key, lines) => {
      const answer = proseFinalAnswer(`${key} ${lines.join('\n')}`)!;
      expect(spans(answer)).toEqual(lines.flatMap(spans));
    }), RUNS.pure);
  });
});

// Properties: the tokeniser's fast ASCII scan and its Unicode path split any ASCII text into the same words, and terms()
// in one pass gives the terms of those words.
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { termOf, terms, words } from '../../src/rag/text/tokenize.js';
import { check, RUNS, tallyLine } from './property-settings.js';

/** Pieces of English-like text that exercise words, digits, case, initials, dotted acronyms and long runs. */
const PIECES = ['word', 'Word', 'WORD', 'US', 'U.S.', 'u.s.', 'A.', 'a.', 'B. F.', 'IT', 'it', 'e.g.', '42', 'x1', ' ', '  ', '.', '..', ',', '-', "'", '\n', 'A', 'z', 'a'.repeat(41), 'The', 'I'];

afterAll(() => console.log(`tokenizer properties: ${tallyLine()}`));

describe('tokenizer properties', () => {
  it('the ASCII scan gives the words the Unicode path gives', async () => {
    await check(
      'ascii scan = unicode path',
      fc.property(fc.array(fc.oneof(fc.constantFrom(...PIECES), fc.string({ unit: 'binary-ascii', maxLength: 6 })), { maxLength: 40 }), (parts) => {
        const text = parts.join('');
        // A trailing "é" sends the text down the Unicode path (NFKD, the \p{L} pattern), where it is one word "e".
        expect(words(`${text} é`)).toEqual([...words(text), 'e']);
      }),
      RUNS.pure,
    );
  });

  it('terms() in one pass gives the terms of the words, whether or not the words were just split', async () => {
    await check(
      'terms = termOf(words)',
      fc.property(fc.array(fc.oneof(fc.constantFrom(...PIECES, 'é', 'Ünïcödé', 'ﬁne', '—'), fc.string({ maxLength: 6 })), { maxLength: 40 }), fc.nat(), (parts, n) => {
        // A text of its own, so the first terms() call can't find its words remembered.
        const text = `${parts.join('')} ${n}`;
        const onePass = terms(text);
        expect(onePass).toEqual(words(text).map(termOf).filter(Boolean));
        // Now remembered (words() was called): the same terms again.
        expect(terms(text)).toEqual(onePass);
      }),
      RUNS.pure,
    );
  });
});

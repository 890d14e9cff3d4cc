// Properties: the tokeniser's scan gives the words its plain specification gives, in any script; ASCII text splits the
// same with or without normalisation; terms() in one pass gives the terms of those words.
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { ACRONYM_MARK, MAX_WORD_CHARS, termOf, terms, words } from '../../src/rag/text/tokenize.js';
import { STOPWORDS } from '../../src/rag/text/stopwords.js';
import { check, RUNS, tallyLine } from './property-settings.js';

/** Pieces of English-like text that exercise words, digits, case, initials, dotted acronyms and long runs. */
const PIECES = ['word', 'Word', 'WORD', 'US', 'U.S.', 'u.s.', 'A.', 'a.', 'B. F.', 'IT', 'it', 'e.g.', '42', 'x1', ' ', '  ', '.', '..', ',', '-', "'", '\n', 'A', 'z', 'a'.repeat(41), 'The', 'I'];

/** Characters that exercise normalisation and case: marks, ligatures, fractions, İ, sigma, astral letters, lone surrogates. */
const UNICODE_PIECES = ['é', 'É', 'e\u0301', '\u0301', 'ﬁ', '½', 'İ', 'ß', 'Σ', 'ΑΣ.', 'ǅ', 'ŉ', 'Å', '𝐀', '😀', '\ud800', '\udc00', '—', '’', 'Тесла', '東京'];

/**
 * The tokeniser's specification, written plainly: NFKD with marks removed, lower case, runs of letters and digits;
 * letter-dot runs are one word; an acronym or initial in capitals that is spelled like a stopword is marked.
 */
function specifiedWords(text: string): string[] {
  const folded = text.normalize('NFKD').replace(/\p{M}+/gu, '');
  const lower = folded.toLowerCase();
  const caseKnown = lower.length === folded.length;
  const out: string[] = [];
  const pattern = /[\p{L}\p{N}]+/gu;
  for (let match = pattern.exec(lower); match; match = pattern.exec(lower)) {
    const at = match.index;
    let end = at + match[0].length;
    let word = match[0];
    let dotted = false;
    const acronym = word.length === 1 ? /^(?:[a-z]\.){2,}/.exec(lower.slice(at)) : null;
    if (acronym) {
      end = at + acronym[0].length;
      word = acronym[0].replaceAll('.', '');
      dotted = true;
      pattern.lastIndex = end;
    }
    if (word.length > MAX_WORD_CHARS) continue;
    const capitals = caseKnown && /^[A-Z]+$/.test(folded.slice(at, end)) && (word.length > 1 || folded[end] === '.');
    out.push((dotted || capitals) && STOPWORDS.has(word) ? word + ACRONYM_MARK : word);
  }
  return out;
}

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

  it('splits any text into the words of its specification', async () => {
    await check(
      'words = specification',
      fc.property(fc.array(fc.oneof(fc.constantFrom(...PIECES, ...UNICODE_PIECES), fc.string({ unit: 'binary', maxLength: 4 })), { maxLength: 40 }), (parts) => {
        const text = parts.join('');
        // Twice, so the second split finds every word in the word table.
        expect(words(`${text} `)).toEqual(specifiedWords(text));
        expect(words(text)).toEqual(specifiedWords(text));
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

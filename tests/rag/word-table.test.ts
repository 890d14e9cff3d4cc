// The tokeniser's word table: a word is found by its range of a text and its hash, even among words of equal hash,
// and the table stays bounded.
import { describe, expect, it } from 'vitest';
import { WordTable, type WordEntry } from '../../src/rag/text/word-table.js';

/** A table whose entries record the word and count how often an entry was made. */
function table(maxWords: number): { words: WordTable; made: () => number } {
  let made = 0;
  const words = new WordTable(maxWords, (word): WordEntry => {
    made++;
    return { word, term: word.toUpperCase(), stopword: false };
  });
  return { words, made: () => made };
}

describe('WordTable', () => {
  it('finds a word by its range in any text and makes its entry once', () => {
    const { words, made } = table(100);
    const first = words.get('the cat sat', 4, 7, 42);
    expect(first).toMatchObject({ word: 'cat', term: 'CAT' });
    expect(words.get('a cat', 2, 5, 42)).toBe(first);
    expect(made()).toBe(1);
  });

  it('tells apart words that share a hash, whatever their length', () => {
    const { words } = table(100);
    const texts = ['cat', 'cot', 'cats', 'ca', 'dog'];
    for (const text of texts) expect(words.get(text, 0, text.length, 7).word).toBe(text);
    for (const text of texts) expect(words.get(` ${text} `, 1, text.length + 1, 7).word).toBe(text);
  });

  it('keeps every word while it grows past its first size', () => {
    const { words, made } = table(100_000);
    const all = Array.from({ length: 10_000 }, (_, i) => `w${i}`);
    const entries = all.map((word, i) => words.get(word, 0, word.length, i * 2_654_435_761));
    all.forEach((word, i) => expect(words.get(word, 0, word.length, i * 2_654_435_761)).toBe(entries[i]));
    expect(made()).toBe(10_000);
  });

  it('starts again empty past its bound, and still answers right', () => {
    const { words, made } = table(3);
    const all = ['a', 'b', 'c', 'd', 'e'];
    for (const [i, word] of all.entries()) words.get(word, 0, 1, i);
    expect(made()).toBe(5);
    // 'd' and 'e' came after the reset and are still there; 'a' is made again.
    expect(words.get('e', 0, 1, 4).word).toBe('e');
    expect(made()).toBe(5);
    expect(words.get('a', 0, 1, 0).word).toBe('a');
    expect(made()).toBe(6);
  });
});

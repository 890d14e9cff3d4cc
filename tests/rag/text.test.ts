// Tokenising and Porter stemming.
import { describe, expect, it } from 'vitest';
import { stem } from '../../src/rag/text/stem.js';
import { normaliseText, terms, words } from '../../src/rag/text/tokenize.js';

describe('stem', () => {
  it('follows Porter on the reference examples', () => {
    const pairs: Array<[string, string]> = [
      ['caresses', 'caress'], ['ponies', 'poni'], ['agreed', 'agre'], ['motoring', 'motor'], ['hopping', 'hop'],
      ['filing', 'file'], ['happy', 'happi'], ['relational', 'relat'], ['generalizations', 'gener'], ['oscillators', 'oscil'],
      ['adjustment', 'adjust'], ['controll', 'control'], ['electrical', 'electr'],
    ];
    for (const [word, expected] of pairs) expect(stem(word), word).toBe(expected);
  });

  it('leaves short words, digits and non-ASCII words alone', () => {
    expect(stem('is')).toBe('is');
    expect(stem('1973')).toBe('1973');
    expect(stem('zürich')).toBe('zürich');
  });
});

describe('terms', () => {
  it('lower-cases, strips diacritics and splits on anything but letters and digits', () => {
    expect(normaliseText('Café ÉCOLE')).toBe('cafe ecole');
    expect(words("Tesla's AC-motor, 1888!")).toEqual(['tesla', 's', 'ac', 'motor', '1888']);
  });

  it('drops stopwords, keeps digits, and stems', () => {
    expect(terms('The engines were connected to a 5 kW generator')).toEqual(['engin', 'connect', '5', 'kw', 'gener']);
  });

  it('keeps initials, one-letter words and acronyms, even those spelled like a stopword', () => {
    expect(terms('B. F. Skinner')).toEqual(['b', 'f', 'skinner']);
    expect(terms('the U.S. Army')).toEqual(['us.', 'armi']);
    // "US" and "U.S." meet; the pronoun "us" stays a stopword.
    expect(terms('US troops near us')).toEqual(['us.', 'troop', 'near']);
    expect(terms('IT budget, e.g. laptops')).toEqual(['it.', 'budget', 'eg', 'laptop']);
    expect(terms('Vitamin C and J. S. Bach')).toEqual(['vitamin', 'c', 'j', 's.', 'bach']);
  });
});

// Text → terms for BM25 and the lexical embedder: Unicode-aware words, lower case, no diacritics, light stemming.
import { stem } from './stem.js';
import { STOPWORDS } from './stopwords.js';

/** A run of letters or digits in any script; everything else separates words. */
const WORD_PATTERN = /[\p{L}\p{N}]+/gu;
/** Combining marks left by NFKD, removed so "café" and "cafe" match. */
const MARKS_PATTERN = /\p{M}+/gu;
/** Longest word kept: longer runs are base64, hashes or URLs that would only bloat the vocabulary. */
export const MAX_WORD_CHARS = 40;
/** Words whose term is memoised (stemming dominates tokenising); the cache is cleared when full, bounding memory. */
const TERM_CACHE_MAX_WORDS = 200_000;
/** word → its term, or '' for a word that is not a content word. */
const termCache = new Map<string, string>();

/** Lower-cased, NFKD-decomposed text with diacritics removed. */
export function normaliseText(text: string): string {
  return text.normalize('NFKD').replace(MARKS_PATTERN, '').toLowerCase();
}

/** Any character outside ASCII: such text needs Unicode normalisation and the Unicode word pattern. */
const NON_ASCII = /[^\x00-\x7f]/u;
/** The word pattern restricted to ASCII, several times faster than the Unicode one on plain English. */
const ASCII_WORD_PATTERN = /[a-z0-9]+/g;

/** Every word of `text`, normalised, in order (stopwords kept, not stemmed). */
export function words(text: string): string[] {
  const out: string[] = [];
  const ascii = !NON_ASCII.test(text);
  const normalised = ascii ? text.toLowerCase() : normaliseText(text);
  for (const match of normalised.matchAll(ascii ? ASCII_WORD_PATTERN : WORD_PATTERN)) {
    const word = match[0];
    if (word.length <= MAX_WORD_CHARS) out.push(word);
  }
  return out;
}

/** True for a word that carries meaning: not a stopword, and not a lone letter (a lone digit counts). */
export function isContentWord(word: string): boolean {
  if (STOPWORDS.has(word)) return false;
  return word.length > 1 || /\p{N}/u.test(word);
}

/** The term of one normalised word: its stem, or '' when it is a stopword or a lone letter. */
export function termOf(word: string): string {
  let term = termCache.get(word);
  if (term === undefined) {
    term = isContentWord(word) ? stem(word) : '';
    if (termCache.size >= TERM_CACHE_MAX_WORDS) termCache.clear();
    termCache.set(word, term);
  }
  return term;
}

/** The content words of `text`, stemmed, in order: the terms BM25 indexes and the embedder hashes. */
export function terms(text: string): string[] {
  const out: string[] = [];
  for (const word of words(text)) {
    const term = termOf(word);
    if (term) out.push(term);
  }
  return out;
}

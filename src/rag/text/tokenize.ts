// Text → terms for BM25 and the lexical embedder: Unicode-aware words, lower case, no diacritics, acronyms kept, light stemming.
import { fnv1a } from '../embed/feature-hash.js';
import { stem } from './stem.js';
import { STOPWORDS } from './stopwords.js';
import { WordTable, type WordEntry } from './word-table.js';

/** Combining marks left by NFKD, removed so "café" and "cafe" match. */
const MARKS_PATTERN = /\p{M}+/gu;
/** Longest word kept: longer runs are base64, hashes or URLs that would only bloat the vocabulary. */
export const MAX_WORD_CHARS = 40;
/** Words whose term is memoised (stemming dominates tokenising); the cache starts again empty when full, bounding memory. */
const TERM_CACHE_MAX_WORDS = 200_000;

/** Lower-cased, NFKD-decomposed text with diacritics removed. */
export function normaliseText(text: string): string {
  return text.normalize('NFKD').replace(MARKS_PATTERN, '').toLowerCase();
}

/**
 * Any character outside ASCII: such text needs Unicode normalisation (and may hold letters beyond a-z). No `u` flag: a
 * UTF-16 unit above 0x7f means a non-ASCII character either way, and the test is 2-7× faster without it.
 */
const NON_ASCII = /[^\x00-\x7f]/;
/** Single letters each followed by a dot, two or more: "U.S.", "e.g.", "B.F." (matched where a word starts). */
const DOTTED_ACRONYM = /(?:[a-z]\.){2,}/y;
/** Marks an acronym or initial that would otherwise be a stopword ("US", "U.S.", "A." → "us.", "a."), so it is kept. */
export const ACRONYM_MARK = '.';
/** Bumped whenever the terms of a text change, so saved BM25 postings from an older tokenizer are rebuilt. */
export const TOKENIZER_VERSION = 2;

/** True when text[start..end) is all capital ASCII letters. */
function allCapitals(text: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const code = text.charCodeAt(i);
    if (code < 65 || code > 90) return false;
  }
  return true;
}

/**
 * Every word of `text`, normalised, in order (stopwords kept, not stemmed). Dotted acronyms are one word ("U.S." →
 * "us"); an acronym or initial spelled like a stopword ("US", "U.S.", "IT", "A.") carries {@link ACRONYM_MARK}.
 */
export function words(text: string): readonly string[] {
  const cached = recentWords.get(text);
  if (cached) return cached;
  const out = splitWords(text);
  if (recentWords.size >= RECENT_TEXTS) recentWords.clear();
  recentWords.set(text, out);
  return out;
}

/** Texts whose words are remembered: an indexer that stores vectors tokenises each new chunk twice (embedder, then BM25) in a row. */
const RECENT_TEXTS = 256;
const recentWords = new Map<string, readonly string[]>();

/** The words of `text` in order; as their terms instead (stopwords left out) when `asTerms`. */
function splitWords(text: string, asTerms = false): string[] {
  const out: string[] = [];
  // Plain ASCII, most text, needs no normalisation: NFKD and the marks pattern would copy and scan it for nothing.
  const folded = NON_ASCII.test(text) ? text.normalize('NFKD').replace(MARKS_PATTERN, '') : text;
  const lower = folded.toLowerCase();
  // Case tells acronyms apart only while lower-casing kept every position.
  const caseKnown = lower.length === folded.length;
  for (let at = 0; at < lower.length; ) {
    let width = wordCharWidth(lower, at);
    if (width === 0) {
      at++;
      continue;
    }
    // The word runs on while word characters follow.
    let end = at;
    do {
      end += width;
      width = end < lower.length ? wordCharWidth(lower, end) : 0;
    } while (width > 0);
    at = addWord(out, folded, lower, at, end, caseKnown, asTerms);
  }
  return out;
}

/** 1 for a-z and 0-9, the word characters of lower-cased ASCII. */
const ASCII_WORD_CHAR = new Uint8Array(128).map((_, code) => ((code >= 97 && code <= 122) || (code >= 48 && code <= 57) ? 1 : 0));
/** A letter or digit in any script: a word is a run of these; everything else separates words. */
const WORD_CHAR = /^[\p{L}\p{N}]$/u;
/** Whether each BMP code unit is a word character: 0 not yet known, 1 yes, 2 no. */
const BMP_WORD_CHAR = new Uint8Array(0x10000);

/**
 * How many code units the word character at text[i] takes (2 for a letter or digit outside the BMP), or 0 when
 * text[i] is no word character (a lone surrogate is none).
 */
function wordCharWidth(text: string, i: number): number {
  const code = text.charCodeAt(i);
  if (code < 128) return ASCII_WORD_CHAR[code]!;
  if (code >= 0xd800 && code <= 0xdbff) {
    const point = text.codePointAt(i)!;
    if (point > 0xffff) return WORD_CHAR.test(String.fromCodePoint(point)) ? 2 : 0;
  }
  let known = BMP_WORD_CHAR[code]!;
  if (known === 0) known = BMP_WORD_CHAR[code] = WORD_CHAR.test(String.fromCharCode(code)) ? 1 : 2;
  return known === 1 ? 1 : 0;
}

/** Every word met, with its term: an acronym marked with ACRONYM_MARK is its own term, any other its stem. */
const wordTable = new WordTable(TERM_CACHE_MAX_WORDS, (word) => {
  const stopword = !isContentWord(word);
  return { word, term: stopword ? '' : word.endsWith(ACRONYM_MARK) ? word : stem(word), stopword };
});

/** The word table's entry of text[start..end). */
function entryOf(text: string, start: number, end: number): WordEntry {
  return wordTable.get(text, start, end, fnv1a(text, start, end));
}

/**
 * Adds the word lower[at..end) to `out` (a dotted acronym read on past `end`, marked when it would be a stopword), or
 * with `asTerms` its term (nothing for a stopword), and returns where the next word may start. `folded` is the text
 * before lower-casing, for telling capitals apart.
 */
function addWord(out: string[], folded: string, lower: string, at: number, end: number, caseKnown: boolean, asTerms: boolean): number {
  // (Positions are checked before they are read: reading past the end would make V8 throw away the optimised code.)
  if (end === at + 1 && end < lower.length && lower.charCodeAt(end) === 46) {
    DOTTED_ACRONYM.lastIndex = at;
    if (DOTTED_ACRONYM.test(lower)) {
      const word = lower.slice(at, DOTTED_ACRONYM.lastIndex).replaceAll('.', '');
      if (word.length <= MAX_WORD_CHARS) push(out, isContentWord(word) ? word : word + ACRONYM_MARK, asTerms);
      return DOTTED_ACRONYM.lastIndex;
    }
  }
  if (end - at > MAX_WORD_CHARS) return end;
  const entry = entryOf(lower, at, end);
  // Cheapest tests first: most words are no stopword, and most stopwords are in lower case.
  const acronym = entry.stopword && caseKnown && allCapitals(folded, at, end) && (end - at > 1 || (end < folded.length && folded.charCodeAt(end) === 46));
  if (acronym) push(out, entry.word + ACRONYM_MARK, asTerms);
  else if (!asTerms) out.push(entry.word);
  else if (entry.term) out.push(entry.term);
  return end;
}

/** Adds `word` to `out`, or its term when `asTerms` (nothing for a stopword). */
function push(out: string[], word: string, asTerms: boolean): void {
  if (!asTerms) out.push(word);
  else {
    const term = termOf(word);
    if (term) out.push(term);
  }
}

/** True for a word that carries meaning: not a stopword (lone letters and digits count: "B. F. Skinner"). */
export function isContentWord(word: string): boolean {
  return !STOPWORDS.has(word);
}

/** The term of one normalised word: its stem (an acronym as it is), or '' when it is a stopword. */
export function termOf(word: string): string {
  return entryOf(word, 0, word.length).term;
}

/**
 * The content words of `text`, stemmed, in order: the terms BM25 indexes and the embedder hashes. From the words
 * remembered for it when the embedder just split it; otherwise in one pass, with no array of words in between.
 */
export function terms(text: string): string[] {
  // An empty memo (no embedder splitting texts) is not asked: that would hash the whole text for nothing.
  const cached = recentWords.size > 0 ? recentWords.get(text) : undefined;
  if (!cached) return splitWords(text, true);
  const out: string[] = [];
  for (const word of cached) {
    const term = termOf(word);
    if (term) out.push(term);
  }
  return out;
}

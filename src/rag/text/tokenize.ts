// Text → terms for BM25 and the lexical embedder: Unicode-aware words, lower case, no diacritics, acronyms kept, light stemming.
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

/**
 * Any character outside ASCII: such text needs Unicode normalisation and the Unicode word pattern. No `u` flag: a
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
  if (!NON_ASCII.test(text)) {
    // Plain ASCII, most text: a scan over char codes, which no regular expression's match objects slow down
    // (the whole tokeniser: 1.3× on SQuAD paragraphs).
    const lower = text.toLowerCase();
    for (let at = 0; at < lower.length; ) {
      if (!isAsciiWordChar(lower.charCodeAt(at))) {
        at++;
        continue;
      }
      let end = at + 1;
      while (end < lower.length && isAsciiWordChar(lower.charCodeAt(end))) end++;
      at = addWord(out, text, lower, at, end, true, asTerms);
    }
    return out;
  }
  const folded = text.normalize('NFKD').replace(MARKS_PATTERN, '');
  const lower = folded.toLowerCase();
  // Case tells acronyms apart only while lower-casing kept every position.
  const caseKnown = lower.length === folded.length;
  const pattern = new RegExp(WORD_PATTERN.source, 'gu');
  for (let match = pattern.exec(lower); match; match = pattern.exec(lower)) {
    pattern.lastIndex = addWord(out, folded, lower, match.index, match.index + match[0].length, caseKnown, asTerms);
  }
  return out;
}

/** a-z or 0-9. */
function isAsciiWordChar(code: number): boolean {
  return (code >= 97 && code <= 122) || (code >= 48 && code <= 57);
}

/**
 * Adds the word lower[at..end) to `out` (a dotted acronym read on past `end`, marked when it would be a stopword), or
 * with `asTerms` its term (nothing for a stopword), and returns where the next word may start. `folded` is the text
 * before lower-casing, for telling capitals apart.
 */
function addWord(out: string[], folded: string, lower: string, at: number, end: number, caseKnown: boolean, asTerms: boolean): number {
  let word: string;
  let dotted = false;
  if (end === at + 1 && lower.charCodeAt(end) === 46) {
    DOTTED_ACRONYM.lastIndex = at;
    if (DOTTED_ACRONYM.test(lower)) {
      end = DOTTED_ACRONYM.lastIndex;
      word = lower.slice(at, end).replaceAll('.', '');
      dotted = true;
    }
  }
  word ??= lower.slice(at, end);
  if (word.length > MAX_WORD_CHARS) return end;
  // Cheapest tests first: most words start in lower case and are no acronym.
  const capital = caseKnown && folded.charCodeAt(at) >= 65 && folded.charCodeAt(at) <= 90;
  if ((dotted || (capital && allCapitals(folded, at, end) && (word.length > 1 || folded.charCodeAt(end) === 46))) && STOPWORDS.has(word)) word += ACRONYM_MARK;
  if (!asTerms) out.push(word);
  else {
    const term = termOf(word);
    if (term) out.push(term);
  }
  return end;
}

/** True for a word that carries meaning: not a stopword (lone letters and digits count: "B. F. Skinner"). */
export function isContentWord(word: string): boolean {
  return !STOPWORDS.has(word);
}

/** The term of one normalised word: its stem (an acronym as it is), or '' when it is a stopword. */
export function termOf(word: string): string {
  let term = termCache.get(word);
  if (term === undefined) {
    term = !isContentWord(word) ? '' : word.endsWith(ACRONYM_MARK) ? word : stem(word);
    if (termCache.size >= TERM_CACHE_MAX_WORDS) termCache.clear();
    termCache.set(word, term);
  }
  return term;
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

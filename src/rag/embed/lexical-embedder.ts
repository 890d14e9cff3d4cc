// The built-in offline embedder: hashed word unigrams, bigrams and character n-grams, TF-weighted, L2-normalised.
import { termOf, words } from '../text/tokenize.js';
import type { Embedder } from './embedder.js';
import { normaliseVector } from './embedder.js';
import { fnv1a, fnv1aStep, mix32 } from './feature-hash.js';

/** Bumped whenever features or weights change, so an old index is rebuilt rather than mixed. */
export const LEXICAL_EMBEDDER_VERSION = 'v2';
/**
 * Default vector length. Hash collisions cost recall below it (vector recall@5 on a quarter of SQuAD dev: 0.70 at
 * 256, 0.79 at 512, 0.84 at 1024, 0.86 at 2048) while FAISS search time and index size grow linearly with it.
 */
export const DEFAULT_LEXICAL_DIMENSION = 1024;
/** Smallest and largest dimension accepted; beyond these the embedder is either lossy or just slow. */
export const MIN_LEXICAL_DIMENSION = 64;
export const MAX_LEXICAL_DIMENSION = 4096;
/** Character n-gram lengths (with word-boundary markers): they catch morphology the stemmer misses and typos. */
const CHAR_NGRAM_MIN = 3;
const CHAR_NGRAM_MAX = 4;
/**
 * How much each feature family counts after each is normalised on its own. Tuned on SQuAD dev: bigrams help
 * little because questions rephrase their passage, character n-grams help more (plurals, names, compounds).
 */
const UNIGRAM_WEIGHT = 1;
const BIGRAM_WEIGHT = 0.25;
const CHAR_NGRAM_WEIGHT = 0.75;
/** Words whose features are memoised; the cache is cleared when full so memory stays bounded on huge corpora. */
const FEATURE_CACHE_MAX_WORDS = 100_000;
/**
 * Cosine at which a vector hit counts as relevant without sharing a term with the query. Measured on SQuAD dev: the
 * best passage sharing no term with a question scores 0.14 (median), 0.25 at most over 300 questions, so 0.35 lets
 * through only near-spellings (names, compounds) that the character n-grams catch.
 */
const LEXICAL_RELEVANCE_FLOOR = 0.35;
/**
 * Weight of this embedder in the fused search: 0, so the fused search is BM25 alone. It hashes the same words BM25
 * indexes, without BM25's rarity weighting, so it adds no information; measured on SQuAD dev (paragraphs and
 * articles) and the fixture corpus, any weight above 0 lowered nDCG@10 and recall@5 below BM25's (see the README).
 */
export const LEXICAL_VECTOR_WEIGHT = 0;

/** Features of one content word, memoised per embedder. */
interface WordFeatures {
  /** Hash of the word's term (stem): the unigram feature, and half of each bigram. */
  termHash: number;
  /** Signed slots of its character n-grams. */
  charSlots: Int32Array;
}

/** Odd multiplier (the golden ratio's) that makes the pair hash order-sensitive: "new york" ≠ "york new". */
const PAIR_MULTIPLIER = 0x9e3779b1;

/** Seeds keep the three feature families apart in the hash space. */
const UNIGRAM_SEED = fnv1a('u');
const BIGRAM_SEED = fnv1a('b');
const CHAR_SEED = fnv1a('c');

export interface LexicalEmbedderOptions {
  /** Vector length, from 64 to 4096. Default 1024. */
  dimension?: number;
}

/** A feature's signed slot: slot + 1, negated for a negative sign (0 never occurs). */
function signedSlot(hash: number, dimension: number): number {
  const h = mix32(hash);
  const slot = (h % dimension) + 1;
  return h & 0x80000000 ? -slot : slot;
}

function addSigned(vector: Float32Array, signed: number, weight: number): void {
  if (signed > 0) vector[signed - 1]! += weight;
  else vector[-signed - 1]! -= weight;
}

/** Adds `part`, normalised and scaled by `weight`, into `total`. */
function addNormalised(total: Float32Array, part: Float32Array, weight: number): void {
  normaliseVector(part);
  for (let i = 0; i < total.length; i++) total[i]! += weight * part[i]!;
}

/**
 * The built-in embedder: deterministic, no model, no network. Similar texts share stemmed words, word pairs
 * and character n-grams, so their vectors point the same way; it knows no synonyms. Its id records the
 * version and dimension, e.g. `builtin:lexical-v2-1024`.
 * @throws RangeError when `dimension` is not an integer from 64 to 4096.
 */
export function createLexicalEmbedder({ dimension = DEFAULT_LEXICAL_DIMENSION }: LexicalEmbedderOptions = {}): Embedder {
  if (!Number.isInteger(dimension) || dimension < MIN_LEXICAL_DIMENSION || dimension > MAX_LEXICAL_DIMENSION) {
    throw new RangeError(`lexical embedder dimension must be an integer from ${MIN_LEXICAL_DIMENSION} to ${MAX_LEXICAL_DIMENSION}, got ${dimension}`);
  }
  /** Per normalised word: null for stopwords, else its term's hash and its character n-gram slots. */
  const wordCache = new Map<string, WordFeatures | null>();

  const featuresOf = (word: string): WordFeatures | null => {
    const cached = wordCache.get(word);
    if (cached !== undefined) return cached;
    const term = termOf(word);
    let features: WordFeatures | null = null;
    if (term) {
      const marked = `<${word}>`;
      const slots: number[] = [];
      for (let start = 0; start + CHAR_NGRAM_MIN <= marked.length; start++) {
        let h = CHAR_SEED;
        for (let i = start; i < marked.length && i - start < CHAR_NGRAM_MAX; i++) {
          h = fnv1aStep(h, marked.charCodeAt(i));
          if (i - start + 1 >= CHAR_NGRAM_MIN) slots.push(signedSlot(h, dimension));
        }
      }
      features = { termHash: fnv1a(term, 0, term.length, UNIGRAM_SEED), charSlots: Int32Array.from(slots) };
    }
    if (wordCache.size >= FEATURE_CACHE_MAX_WORDS) wordCache.clear();
    wordCache.set(word, features);
    return features;
  };

  const part = new Float32Array(dimension);
  const embedOne = (text: string): Float32Array => {
    // Counts keyed by hash (terms, pairs) or by the word's features object: no strings built per occurrence.
    const unigrams = new Map<number, number>();
    const bigrams = new Map<number, number>();
    const wordCounts = new Map<WordFeatures, number>();
    let previous: WordFeatures | null = null;
    for (const word of words(text)) {
      const features = featuresOf(word);
      if (!features) continue;
      unigrams.set(features.termHash, (unigrams.get(features.termHash) ?? 0) + 1);
      wordCounts.set(features, (wordCounts.get(features) ?? 0) + 1);
      if (previous) {
        const pair = mix32(Math.imul(previous.termHash, PAIR_MULTIPLIER) ^ features.termHash ^ BIGRAM_SEED);
        bigrams.set(pair, (bigrams.get(pair) ?? 0) + 1);
      }
      previous = features;
    }
    // The result is the only allocation per text; the family buffer is reused (embedOne is synchronous).
    const total = new Float32Array(dimension);
    part.fill(0);
    // Sublinear TF: a word said ten times matters more than once, not ten times more.
    for (const [hash, count] of unigrams) addSigned(part, signedSlot(hash, dimension), 1 + Math.log(count));
    addNormalised(total, part, UNIGRAM_WEIGHT);
    part.fill(0);
    for (const [hash, count] of bigrams) addSigned(part, signedSlot(hash, dimension), 1 + Math.log(count));
    addNormalised(total, part, BIGRAM_WEIGHT);
    part.fill(0);
    for (const [features, count] of wordCounts) {
      const weight = 1 + Math.log(count);
      for (const signed of features.charSlots) addSigned(part, signed, weight);
    }
    addNormalised(total, part, CHAR_NGRAM_WEIGHT);
    return normaliseVector(total);
  };

  return {
    id: `builtin:lexical-${LEXICAL_EMBEDDER_VERSION}-${dimension}`,
    dimension,
    relevanceFloor: LEXICAL_RELEVANCE_FLOOR,
    vectorWeight: LEXICAL_VECTOR_WEIGHT,
    embed: async (texts) => texts.map(embedOne),
  };
}

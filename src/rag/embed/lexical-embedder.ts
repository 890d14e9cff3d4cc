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

/** A term (stem) of the texts, shared by every word with that stem; `count` is its count in the text being embedded. */
interface TermFeatures {
  /** Hash of the term: the unigram feature, and half of each bigram. */
  hash: number;
  /** Its signed unigram slot. */
  slot: number;
  count: number;
}

/** Features of one content word, memoised per embedder; `count` is its count in the text being embedded. */
interface WordFeatures {
  term: TermFeatures;
  /** Signed slots of its character n-grams. */
  charSlots: Int32Array;
  count: number;
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

/**
 * Counts of 32-bit keys in first-seen order, for one text at a time: an open-addressing table in typed arrays,
 * sized for the text's words, so counting allocates nothing per word.
 */
function createCountTable() {
  let slots = new Int32Array(256);
  let keys = new Uint32Array(128);
  let counts = new Uint32Array(128);
  let size = 0;
  return {
    /** Empties the table, ready for up to `capacity` keys. */
    reset(capacity: number): void {
      if (capacity * 2 > slots.length) {
        let length = slots.length;
        while (capacity * 2 > length) length *= 2;
        slots = new Int32Array(length);
        keys = new Uint32Array(length / 2);
        counts = new Uint32Array(length / 2);
      } else {
        slots.fill(0);
      }
      size = 0;
    },
    increment(key: number): void {
      const mask = slots.length - 1;
      for (let at = key & mask; ; at = (at + 1) & mask) {
        const entry = slots[at]!;
        if (entry === 0) {
          keys[size] = key;
          counts[size] = 1;
          slots[at] = ++size;
          return;
        }
        if (keys[entry - 1] === key) {
          counts[entry - 1]!++;
          return;
        }
      }
    },
    forEach(visit: (key: number, count: number) => void): void {
      for (let i = 0; i < size; i++) visit(keys[i]!, counts[i]!);
    },
  };
}

/**
 * One feature family's vector: normalised, added and cleared in one pass over the slots a text touched, in
 * ascending order, so the result is the same to the bit as normalising the dense vector and adding it.
 */
function createFamilyAccumulator(dimension: number) {
  const part = new Float32Array(dimension);
  const seen = new Uint8Array(dimension);
  return {
    /** Adds `weight` at a signed slot (negative: subtracted). */
    add(signed: number, weight: number): void {
      const slot = signed > 0 ? signed - 1 : -signed - 1;
      seen[slot] = 1;
      if (signed > 0) part[slot]! += weight;
      else part[slot]! -= weight;
    },
    /** Adds the family's vector, scaled to unit length and then by `weight`, into `total`, and starts a new family. */
    addNormalisedTo(total: Float32Array, weight: number): void {
      let sum = 0;
      for (let slot = 0; slot < dimension; slot++) if (seen[slot] !== 0) sum += part[slot]! * part[slot]!;
      const scale = sum > 0 ? 1 / Math.sqrt(sum) : 1;
      for (let slot = 0; slot < dimension; slot++) {
        if (seen[slot] === 0) continue;
        part[slot]! *= scale;
        total[slot]! += weight * part[slot]!;
        part[slot] = 0;
        seen[slot] = 0;
      }
    },
  };
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
  /** Per normalised word: null for stopwords, else its term and its character n-gram slots. */
  const wordCache = new Map<string, WordFeatures | null>();
  const termCache = new Map<string, TermFeatures>();

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
      let termFeatures = termCache.get(term);
      if (!termFeatures) {
        const hash = fnv1a(term, 0, term.length, UNIGRAM_SEED);
        termFeatures = { hash, slot: signedSlot(hash, dimension), count: 0 };
        termCache.set(term, termFeatures);
      }
      features = { term: termFeatures, charSlots: Int32Array.from(slots), count: 0 };
    }
    wordCache.set(word, features);
    return features;
  };

  const family = createFamilyAccumulator(dimension);
  const bigrams = createCountTable();
  // Terms and words of the text in order of first appearance; their counts live on the cached objects.
  const textTerms: TermFeatures[] = [];
  const textWords: WordFeatures[] = [];
  const embedOne = (text: string): Float32Array => {
    // Cleared between texts only: the objects of the text being embedded must stay the cached ones.
    if (wordCache.size >= FEATURE_CACHE_MAX_WORDS) {
      wordCache.clear();
      termCache.clear();
    }
    const all = words(text);
    bigrams.reset(all.length);
    let previous: TermFeatures | null = null;
    for (const word of all) {
      const features = featuresOf(word);
      if (!features) continue;
      const term = features.term;
      if (term.count++ === 0) textTerms.push(term);
      if (features.count++ === 0) textWords.push(features);
      if (previous) bigrams.increment(mix32(Math.imul(previous.hash, PAIR_MULTIPLIER) ^ term.hash ^ BIGRAM_SEED));
      previous = term;
    }
    // The result is the only allocation per text.
    const total = new Float32Array(dimension);
    // Sublinear TF: a word said ten times matters more than once, not ten times more.
    for (const term of textTerms) {
      family.add(term.slot, 1 + Math.log(term.count));
      term.count = 0;
    }
    family.addNormalisedTo(total, UNIGRAM_WEIGHT);
    bigrams.forEach((hash, count) => family.add(signedSlot(hash, dimension), 1 + Math.log(count)));
    family.addNormalisedTo(total, BIGRAM_WEIGHT);
    for (const features of textWords) {
      const weight = 1 + Math.log(features.count);
      for (const signed of features.charSlots) family.add(signed, weight);
      features.count = 0;
    }
    family.addNormalisedTo(total, CHAR_NGRAM_WEIGHT);
    textTerms.length = 0;
    textWords.length = 0;
    return normaliseVector(total);
  };

  return {
    id: `builtin:lexical-${LEXICAL_EMBEDDER_VERSION}-${dimension}`,
    dimension,
    relevanceFloor: LEXICAL_RELEVANCE_FLOOR,
    vectorWeight: LEXICAL_VECTOR_WEIGHT,
    inProcess: true,
    embed: async (texts) => texts.map(embedOne),
  };
}

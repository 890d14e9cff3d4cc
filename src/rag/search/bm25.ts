// Okapi BM25 over chunk texts: a compact inverted index (typed arrays) built from the chunks' terms, saved beside index.bin.
import { terms } from '../text/tokenize.js';

/** Term-frequency saturation: the usual 1.2 (Robertson, Lucene's default). */
export const BM25_K1 = 1.2;
/** Length normalisation: the usual 0.75. */
export const BM25_B = 0.75;

/** One BM25 hit: the chunk's position in the indexed list and its score (> 0: it shares a term with the query). */
export interface Bm25Hit {
  index: number;
  score: number;
}

/**
 * The postings of every term, flat: term t's documents are `docs[offsets[t] .. offsets[t+1])` in ascending order,
 * with their term frequencies in `freqs`; `lengths[d]` counts document d's terms.
 */
export interface Bm25Data {
  terms: string[];
  offsets: Uint32Array;
  docs: Uint32Array;
  freqs: Uint32Array;
  lengths: Uint32Array;
}

/** An immutable BM25 index over a list of texts; positions in the list are the hit indexes. */
export interface Bm25Index {
  readonly size: number;
  /** The postings, for saving and for merging into the next index. */
  readonly data: Bm25Data;
  /** Up to `k` texts sharing at least one term with `query`, best first; ties keep list order. */
  search(query: string, k: number): Bm25Hit[];
  /** How many texts contain the term (after normalising and stemming `word`). */
  documentFrequency(word: string): number;
  /** True when text `index` contains at least one of the query's terms (stopwords never count). */
  sharesTerm(query: string, index: number): boolean;
}

/** Whether sorted `list[lo..hi)` holds `value`. */
function sortedHas(list: Uint32Array, lo: number, hi: number, value: number): boolean {
  hi -= 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const at = list[mid]!;
    if (at === value) return true;
    if (at < value) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}

/**
 * Postings from each document's terms (documents in order), optionally appended to `base`'s documents kept by
 * `keep` (renumbered in order): how the indexer carries the old postings over without tokenising kept chunks again.
 */
export function buildBm25Data(documentTerms: Iterable<readonly string[]>, base?: { data: Bm25Data; keep: (doc: number) => boolean }): Bm25Data {
  // Term ids in first-seen order; each term's postings as flat (doc, freq) pairs, counted in place: one Map lookup
  // per term occurrence, and no per-document Map.
  const ids = new Map<string, number>();
  const lists: number[][] = [];
  const lengths: number[] = [];
  if (base) {
    const { data, keep } = base;
    const renumber = new Int32Array(data.lengths.length).fill(-1);
    for (let doc = 0; doc < data.lengths.length; doc++) {
      if (keep(doc)) {
        renumber[doc] = lengths.length;
        lengths.push(data.lengths[doc]!);
      }
    }
    data.terms.forEach((term, t) => {
      const list: number[] = [];
      for (let i = data.offsets[t]!; i < data.offsets[t + 1]!; i++) {
        const doc = renumber[data.docs[i]!]!;
        if (doc >= 0) list.push(doc, data.freqs[i]!);
      }
      if (list.length) {
        ids.set(term, lists.length);
        lists.push(list);
      }
    });
  }
  for (const docTerms of documentTerms) {
    const doc = lengths.length;
    lengths.push(docTerms.length);
    for (const term of docTerms) {
      let id = ids.get(term);
      if (id === undefined) {
        id = lists.length;
        ids.set(term, id);
        lists.push([]);
      }
      const list = lists[id]!;
      // The list ends with this document's pair once the term has been seen in it.
      if (list[list.length - 2] === doc) list[list.length - 1]!++;
      else list.push(doc, 1);
    }
  }
  const offsets = new Uint32Array(lists.length + 1);
  let total = 0;
  lists.forEach((list, t) => {
    offsets[t] = total;
    total += list.length / 2;
  });
  offsets[lists.length] = total;
  const docs = new Uint32Array(total);
  const freqs = new Uint32Array(total);
  lists.forEach((list, t) => {
    let at = offsets[t]!;
    for (let i = 0; i < list.length; i += 2, at++) {
      docs[at] = list[i]!;
      freqs[at] = list[i + 1]!;
    }
  });
  return { terms: [...ids.keys()], offsets, docs, freqs, lengths: Uint32Array.from(lengths) };
}

/** Pushes (doc, score) into a min-heap of the `k` best, kept as parallel arrays; ties prefer the lower doc. */
function worse(scoreA: number, docA: number, scoreB: number, docB: number): boolean {
  return scoreA < scoreB || (scoreA === scoreB && docA > docB);
}

/** The index over saved or freshly built postings. */
export function bm25FromData(data: Bm25Data): Bm25Index {
  const n = data.lengths.length;
  const termIds = new Map<string, number>();
  data.terms.forEach((term, t) => termIds.set(term, t));
  let totalLength = 0;
  for (let d = 0; d < n; d++) totalLength += data.lengths[d]!;
  const averageLength = n > 0 ? totalLength / n || 1 : 1;
  // Per-document length normalisation, computed once: k1 * (1 - b + b * len / avg).
  const norms = new Float32Array(n);
  for (let d = 0; d < n; d++) norms[d] = BM25_K1 * (1 - BM25_B + (BM25_B * data.lengths[d]!) / averageLength);
  // Reused across searches (one search at a time: search is synchronous).
  const scores = new Float64Array(n);
  const touched = new Uint32Array(n);

  return {
    size: n,
    data,
    documentFrequency: (word) => {
      const t = termIds.get(terms(word)[0] ?? '');
      return t === undefined ? 0 : data.offsets[t + 1]! - data.offsets[t]!;
    },
    sharesTerm: (query, index) =>
      terms(query).some((term) => {
        const t = termIds.get(term);
        return t !== undefined && sortedHas(data.docs, data.offsets[t]!, data.offsets[t + 1]!, index);
      }),
    search(query, k) {
      if (n === 0 || k <= 0) return [];
      let count = 0;
      for (const term of new Set(terms(query))) {
        const t = termIds.get(term);
        if (t === undefined) continue;
        const start = data.offsets[t]!;
        const end = data.offsets[t + 1]!;
        const df = end - start;
        // The "+1" inside the log keeps IDF positive for terms in more than half the texts (Lucene's variant).
        const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
        for (let i = start; i < end; i++) {
          const doc = data.docs[i]!;
          const freq = data.freqs[i]!;
          if (scores[doc] === 0) touched[count++] = doc;
          scores[doc]! += (idf * freq * (BM25_K1 + 1)) / (freq + norms[doc]!);
        }
      }
      // The k best by a min-heap over the touched documents: O(touched · log k), no full sort.
      const size = Math.min(k, count);
      const heapDocs = new Uint32Array(size);
      const heapScores = new Float64Array(size);
      let filled = 0;
      const siftDown = (from: number) => {
        let i = from;
        for (;;) {
          const l = 2 * i + 1;
          const r = l + 1;
          let m = i;
          if (l < filled && worse(heapScores[l]!, heapDocs[l]!, heapScores[m]!, heapDocs[m]!)) m = l;
          if (r < filled && worse(heapScores[r]!, heapDocs[r]!, heapScores[m]!, heapDocs[m]!)) m = r;
          if (m === i) return;
          [heapDocs[i], heapDocs[m]] = [heapDocs[m]!, heapDocs[i]!];
          [heapScores[i], heapScores[m]] = [heapScores[m]!, heapScores[i]!];
          i = m;
        }
      };
      for (let j = 0; j < count; j++) {
        const doc = touched[j]!;
        const score = scores[doc]!;
        scores[doc] = 0;
        if (filled < size) {
          let i = filled++;
          heapDocs[i] = doc;
          heapScores[i] = score;
          while (i > 0) {
            const parent = (i - 1) >> 1;
            if (!worse(heapScores[i]!, heapDocs[i]!, heapScores[parent]!, heapDocs[parent]!)) break;
            [heapDocs[i], heapDocs[parent]] = [heapDocs[parent]!, heapDocs[i]!];
            [heapScores[i], heapScores[parent]] = [heapScores[parent]!, heapScores[i]!];
            i = parent;
          }
        } else if (worse(heapScores[0]!, heapDocs[0]!, score, doc)) {
          heapDocs[0] = doc;
          heapScores[0] = score;
          siftDown(0);
        }
      }
      const hits: Bm25Hit[] = [];
      for (let i = 0; i < filled; i++) hits.push({ index: heapDocs[i]!, score: heapScores[i]! });
      hits.sort((a, b) => b.score - a.score || a.index - b.index);
      return hits;
    },
  };
}

/** Builds the index; `texts[i]` becomes hit index i. Linear in the total text length. */
export function buildBm25Index(texts: readonly string[]): Bm25Index {
  return bm25FromData(buildBm25Data(texts.map((text) => terms(text))));
}

// Okapi BM25 over chunk texts: an inverted index built in memory from the same chunks FAISS holds.
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

interface Postings {
  docs: number[];
  freqs: number[];
}

/** An immutable BM25 index over a list of texts; positions in the list are the hit indexes. */
export interface Bm25Index {
  readonly size: number;
  /** Up to `k` texts sharing at least one term with `query`, best first; ties keep list order. */
  search(query: string, k: number): Bm25Hit[];
  /** How many texts contain the term (after normalising and stemming `word`). */
  documentFrequency(word: string): number;
  /** True when text `index` contains at least one of the query's terms (stopwords never count). */
  sharesTerm(query: string, index: number): boolean;
}

/** Whether sorted `list` holds `value` (postings lists are built in ascending text order). */
function sortedHas(list: readonly number[], value: number): boolean {
  let lo = 0;
  let hi = list.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const at = list[mid]!;
    if (at === value) return true;
    if (at < value) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}

/** Builds the index; `texts[i]` becomes hit index i. Linear in the total text length. */
export function buildBm25Index(texts: readonly string[]): Bm25Index {
  const postings = new Map<string, Postings>();
  const lengths = new Float64Array(texts.length);
  let totalLength = 0;
  texts.forEach((text, doc) => {
    const docTerms = terms(text);
    lengths[doc] = docTerms.length;
    totalLength += docTerms.length;
    const counts = new Map<string, number>();
    for (const term of docTerms) counts.set(term, (counts.get(term) ?? 0) + 1);
    for (const [term, freq] of counts) {
      let list = postings.get(term);
      if (!list) postings.set(term, (list = { docs: [], freqs: [] }));
      list.docs.push(doc);
      list.freqs.push(freq);
    }
  });
  const n = texts.length;
  const averageLength = n > 0 ? totalLength / n || 1 : 1;

  return {
    size: n,
    documentFrequency: (word) => postings.get(terms(word)[0] ?? '')?.docs.length ?? 0,
    sharesTerm: (query, index) => terms(query).some((term) => sortedHas(postings.get(term)?.docs ?? [], index)),
    search(query, k) {
      if (n === 0 || k <= 0) return [];
      const scores = new Map<number, number>();
      for (const term of new Set(terms(query))) {
        const list = postings.get(term);
        if (!list) continue;
        const df = list.docs.length;
        // The "+1" inside the log keeps IDF positive for terms in more than half the texts (Lucene's variant).
        const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
        for (let i = 0; i < df; i++) {
          const doc = list.docs[i]!;
          const freq = list.freqs[i]!;
          const norm = freq + BM25_K1 * (1 - BM25_B + (BM25_B * lengths[doc]!) / averageLength);
          scores.set(doc, (scores.get(doc) ?? 0) + (idf * freq * (BM25_K1 + 1)) / norm);
        }
      }
      const hits: Bm25Hit[] = [];
      for (const [index, score] of scores) hits.push({ index, score });
      hits.sort((a, b) => b.score - a.score || a.index - b.index);
      return hits.slice(0, k);
    },
  };
}

// Properties: BM25 postings carried over from a saved base (some documents dropped, new ones added) are exactly the
// postings built from scratch over the kept and new documents, and each posting counts its term in its document.
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { buildBm25Data, type Bm25Data } from '../../src/rag/search/bm25.js';
import { check, RUNS, tallyLine } from './property-settings.js';

/** A document: a few terms from a small vocabulary, so terms repeat within and across documents. */
const documentTerms = fc.array(fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g'), { maxLength: 12 });

/** Term → [doc, freq] pairs, for comparing postings whatever the term order. */
function postings(data: Bm25Data): Map<string, number[]> {
  return new Map(data.terms.map((term, t) => [term, [...data.docs.subarray(data.offsets[t], data.offsets[t + 1])].flatMap((doc, i) => [doc, data.freqs[data.offsets[t]! + i]!])]));
}

afterAll(() => console.log(`bm25 properties: ${tallyLine()}`));

describe('BM25 postings properties', () => {
  it('counts each term once per document it is in, with its frequency there', async () => {
    await check(
      'postings = counts',
      fc.property(fc.array(documentTerms, { maxLength: 20 }), (docs) => {
        const data = buildBm25Data(docs);
        expect([...data.lengths]).toEqual(docs.map((terms) => terms.length));
        for (const [term, pairs] of postings(data)) {
          const expected = docs.flatMap((terms, doc) => {
            const freq = terms.filter((t) => t === term).length;
            return freq ? [doc, freq] : [];
          });
          expect(pairs).toEqual(expected);
        }
        expect(data.terms.sort()).toEqual([...new Set(docs.flat())].sort());
      }),
      RUNS.pure,
    );
  });

  it('carries a base over as if the kept and new documents were indexed from scratch', async () => {
    await check(
      'base + new = from scratch',
      fc.property(fc.array(documentTerms, { maxLength: 20 }), fc.array(fc.boolean(), { minLength: 20, maxLength: 20 }), fc.array(documentTerms, { maxLength: 8 }), (old, keeps, added) => {
        const keep = (doc: number) => keeps[doc]!;
        const merged = buildBm25Data(added, { data: buildBm25Data(old), keep });
        const scratch = buildBm25Data([...old.filter((_, doc) => keep(doc)), ...added]);
        expect(postings(merged)).toEqual(postings(scratch));
        expect(merged.lengths).toEqual(scratch.lengths);
      }),
      RUNS.pure,
    );
  });
});

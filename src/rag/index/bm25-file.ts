// Reads and writes bm25.bin: the BM25 postings of an index generation, so a search never tokenises every chunk on load.
import type { Bm25Data } from '../search/bm25.js';
import { TOKENIZER_VERSION } from '../text/tokenize.js';

/** The postings file beside index.bin; written before metadata.json, tied to it by the generation number. */
export const BM25_FILE = 'bm25.bin';
const MAGIC = 'CXB1';
/** magic + tokenizer version, generation, documents, terms, postings, term-text bytes (u32 each). */
const HEADER_BYTES = 4 + 6 * 4;

/** bm25.bin's bytes for `data` of index generation `generation`. */
export function encodeBm25File(generation: number, data: Bm25Data): Buffer {
  const termText = Buffer.from(data.terms.join('\n'), 'utf8');
  const padded = (termText.length + 3) & ~3;
  const postings = data.docs.length;
  const arrays = [data.offsets, data.docs, data.freqs, data.lengths];
  const out = Buffer.alloc(HEADER_BYTES + padded + arrays.reduce((sum, a) => sum + a.byteLength, 0));
  out.write(MAGIC, 0, 'latin1');
  [TOKENIZER_VERSION, generation, data.lengths.length, data.terms.length, postings, termText.length].forEach((v, i) => out.writeUInt32LE(v, 4 + i * 4));
  termText.copy(out, HEADER_BYTES);
  let offset = HEADER_BYTES + padded;
  for (const array of arrays) {
    out.set(new Uint8Array(array.buffer, array.byteOffset, array.byteLength), offset);
    offset += array.byteLength;
  }
  return out;
}

/**
 * The postings in bm25.bin bytes when they belong to `generation` with `documents` chunks and this tokenizer;
 * null otherwise (stale, foreign or damaged: the caller rebuilds them from the chunk texts).
 */
export function decodeBm25File(bytes: Buffer, generation: number, documents: number): Bm25Data | null {
  if (bytes.length < HEADER_BYTES || bytes.toString('latin1', 0, 4) !== MAGIC) return null;
  const [version, gen, docs, termCount, postings, termBytes] = Array.from({ length: 6 }, (_, i) => bytes.readUInt32LE(4 + i * 4)) as [number, number, number, number, number, number];
  if (version !== TOKENIZER_VERSION || gen !== generation || docs !== documents) return null;
  const padded = (termBytes + 3) & ~3;
  const expected = HEADER_BYTES + padded + 4 * (termCount + 1 + 2 * postings + docs);
  if (bytes.length !== expected) return null;
  const terms = termCount === 0 ? [] : bytes.toString('utf8', HEADER_BYTES, HEADER_BYTES + termBytes).split('\n');
  if (terms.length !== termCount) return null;
  // One aligned copy of the numeric part, then views into it.
  const numbers = new Uint32Array((expected - HEADER_BYTES - padded) / 4);
  new Uint8Array(numbers.buffer).set(bytes.subarray(HEADER_BYTES + padded));
  let at = 0;
  const take = (length: number) => numbers.subarray(at, (at += length));
  const data: Bm25Data = { terms, offsets: take(termCount + 1), docs: take(postings), freqs: take(postings), lengths: take(docs) };
  if (data.offsets[termCount] !== postings) return null;
  for (let i = 0; i < postings; i++) if (data.docs[i]! >= docs) return null;
  return data;
}

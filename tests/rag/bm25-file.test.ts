// bm25.bin: the saved postings round-trip, carry over when files change, and are ignored when stale.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLexicalEmbedder } from '../../src/rag/embed/lexical-embedder.js';
import { BM25_FILE, decodeBm25File, encodeBm25File } from '../../src/rag/index/bm25-file.js';
import { indexDocuments } from '../../src/rag/index/index-documents.js';
import { readIndexStore, savedBm25 } from '../../src/rag/index/index-store.js';
import { bm25FromData, buildBm25Data, buildBm25Index } from '../../src/rag/search/bm25.js';
import { loadSearchIndex } from '../../src/rag/search/search-index.js';
import { terms } from '../../src/rag/text/tokenize.js';
import { FakeExtractor } from './fake-extractor.js';
import { makeTempFolders, type TempFolders } from './temp-folders.js';

const texts = ['B. F. Skinner studied operant conditioning.', 'Skinner boxes hold pigeons.', 'The U.S. Army in café Zürich.'];

describe('bm25.bin encoding', () => {
  it('round-trips the postings and ranks exactly as the index built from the texts', () => {
    const data = buildBm25Data(texts.map((t) => terms(t)));
    const decoded = decodeBm25File(encodeBm25File(7, data), 7, texts.length)!;
    expect(decoded.terms).toEqual(data.terms);
    const fromFile = bm25FromData(decoded);
    const fresh = buildBm25Index(texts);
    for (const query of ['B. F. Skinner', 'U.S. army', 'zurich cafe', 'pigeons']) expect(fromFile.search(query, 3)).toEqual(fresh.search(query, 3));
    expect(fresh.search('B. F. Skinner', 1)[0]!.index).toBe(0);
  });

  it('is refused when it belongs to another generation, another chunk count, or is damaged', () => {
    const bytes = encodeBm25File(3, buildBm25Data(texts.map((t) => terms(t))));
    expect(decodeBm25File(bytes, 4, texts.length)).toBeNull();
    expect(decodeBm25File(bytes, 3, texts.length + 1)).toBeNull();
    expect(decodeBm25File(bytes.subarray(0, bytes.length - 4), 3, texts.length)).toBeNull();
    expect(decodeBm25File(Buffer.from('not postings at all'), 3, texts.length)).toBeNull();
  });

  it('carries kept documents over, renumbered, when others are dropped and new ones added', () => {
    const base = buildBm25Data(texts.map((t) => terms(t)));
    const merged = bm25FromData(buildBm25Data([terms('Pavlov trained dogs.')], { data: base, keep: (doc) => doc !== 1 }));
    const fresh = buildBm25Index([texts[0]!, texts[2]!, 'Pavlov trained dogs.']);
    for (const query of ['skinner', 'army', 'pavlov dogs', 'pigeons']) expect(merged.search(query, 5)).toEqual(fresh.search(query, 5));
  });
});

describe('the index saves its BM25 postings', () => {
  let folders: TempFolders;
  const embedder = createLexicalEmbedder({ dimension: 128 });
  beforeEach(async () => {
    folders = await makeTempFolders();
    await folders.write('skinner.md', 'B. F. Skinner studied operant conditioning with pigeons.');
    await folders.write('army.txt', 'The U.S. Army bought a new radio.');
  });
  afterEach(async () => {
    await folders.remove();
  });
  const index = () => indexDocuments({ documentsDir: folders.documentsDir, indexDir: folders.indexDir, embedder, extractor: new FakeExtractor(folders.documentsDir) });

  it('writes bm25.bin with each generation and searches from it, rebuilding from the chunks when it is stale', async () => {
    await index();
    let store = await readIndexStore(folders.indexDir);
    expect(store.status === 'ok' && savedBm25(store.store)?.lengths.length).toBe(2);
    await folders.write('pavlov.md', 'Pavlov trained dogs to expect food at the sound of a bell.');
    await index();
    store = await readIndexStore(folders.indexDir);
    expect(store.status === 'ok' && savedBm25(store.store)?.lengths.length).toBe(3);
    expect((await loadSearchIndex(folders.indexDir))!.bm25().search('U.S.', 1).length).toBe(1);
    // A bm25.bin from another generation (a crash between writes) is ignored, never trusted.
    const old = await readFile(join(folders.indexDir, BM25_FILE));
    await folders.write('extra.md', 'Another note about bells.');
    await index();
    await writeFile(join(folders.indexDir, BM25_FILE), old);
    store = await readIndexStore(folders.indexDir);
    expect(store.status === 'ok' && savedBm25(store.store)).toBeNull();
    const loaded = (await loadSearchIndex(folders.indexDir))!;
    expect(loaded.chunks[loaded.bm25().search('bells', 1)[0]!.index]!.doc).toBe('extra.md');
  });
});

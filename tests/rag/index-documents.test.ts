// The indexer with real faiss files: incremental runs, deletions, rebuilds and failures (the lock: index-lock.test.ts).
import { createHash } from 'node:crypto';
import { readFile, rm, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ScriptedLlm } from '../helpers/scripted-llm.js';
import type { Embedder } from '../../src/rag/embed/embedder.js';
import { createLexicalEmbedder } from '../../src/rag/embed/lexical-embedder.js';
import { EXTRACTION_LOOKAHEAD_BYTES, EXTRACTION_LOOKAHEAD_FILES, EXTRACTION_LOOKAHEAD_MIN_FILES } from '../../src/rag/index/extract-ahead.js';
import { indexDocuments, type IndexDocumentsOptions, type IndexProgress } from '../../src/rag/index/index-documents.js';
import { readIndexStore } from '../../src/rag/index/index-store.js';
import { bm25Search, vectorSearch } from '../../src/rag/search/retrievers.js';
import { loadSearchIndex } from '../../src/rag/search/search-index.js';
import type { ExtractionResult, Extractor } from '../../src/rag/types.js';
import type { FakeExtractor } from './fake-extractor.js';
import { makeSampleDocuments } from './sample-documents.js';
import type { TempFolders } from './temp-folders.js';

let folders: TempFolders;
let extractor: FakeExtractor;
const embedder = createLexicalEmbedder({ dimension: 256 });

beforeEach(async () => {
  ({ folders, extractor } = await makeSampleDocuments());
});

afterEach(async () => {
  await folders.remove();
});

function run(options: Partial<IndexDocumentsOptions> = {}) {
  return indexDocuments({ documentsDir: folders.documentsDir, indexDir: folders.indexDir, embedder, extractor, ...options });
}

async function docsInIndex(): Promise<string[]> {
  const index = await loadSearchIndex(folders.indexDir);
  return [...new Set(index!.chunks.map((c) => c.doc))].sort();
}

/** Sets a file's mtime well in the past, so the racy-mtime rule does not force a re-hash. */
async function age(rel: string, secondsAgo = 60): Promise<void> {
  const when = new Date(Date.now() - secondsAgo * 1000);
  await utimes(join(folders.documentsDir, rel), when, when);
}

describe('indexDocuments', () => {
  it('indexes every regular file into the three index files', async () => {
    const events: IndexProgress[] = [];
    const summary = await run({ onProgress: (e) => events.push(e) });
    expect(summary).toMatchObject({ added: 3, updated: 0, removed: 0, skipped: 0, failed: [], chunks: 3, rebuilt: false, changed: true, generation: 1 });
    expect(await docsInIndex()).toEqual(['notes/warsaw.html', 'oxygen.txt', 'tesla.md']);
    const result = await readIndexStore(folders.indexDir);
    expect(result.status).toBe('ok');
    if (result.status !== 'ok') return;
    expect(result.store.model).toBe(embedder.id);
    expect(result.store.files['tesla.md']).toMatchObject({ model: embedder.id, chunk_ids: ['tesla.md#0'], format: 'md' });
    // This extractor reports no hash of what it read, so the indexer hashed the new file itself.
    const bytes = await readFile(join(folders.documentsDir, 'tesla.md'));
    expect(result.store.files['tesla.md']?.hash).toBe(createHash('sha256').update(bytes).digest('hex'));
    expect(result.store.chunks.find((c) => c.doc === 'tesla.md')).toMatchObject({ chunk_id: 'tesla.md#0', page: 1, chunk: expect.stringContaining('induction motor') });
    const fileEvents = events.filter((e) => e.phase === 'file');
    expect(fileEvents.map((e) => (e.phase === 'file' ? `${e.done}/${e.total}` : ''))).toEqual(['1/3', '2/3', '3/3']);
    expect(events.some((e) => e.phase === 'saving')).toBe(true);
  });

  it('touches nothing on a re-run over an unchanged folder', async () => {
    await run();
    for (const rel of ['tesla.md', 'oxygen.txt', 'notes/warsaw.html']) await age(rel);
    await run(); // records the aged mtimes
    extractor.calls.length = 0;
    const before = await stat(join(folders.indexDir, 'metadata.json'));
    const summary = await run();
    expect(summary).toMatchObject({ added: 0, updated: 0, removed: 0, skipped: 3, changed: false });
    expect(extractor.calls).toEqual([]);
    expect((await stat(join(folders.indexDir, 'metadata.json'))).mtimeMs).toBe(before.mtimeMs);
  });

  it('re-extracts only the changed file and drops its old chunks', async () => {
    await run();
    extractor.calls.length = 0;
    await folders.write('tesla.md', '# Tesla\n\nTesla later worked on wireless power transmission at Wardenclyffe.');
    const summary = await run();
    expect(summary).toMatchObject({ added: 0, updated: 1, skipped: 2, chunks: 3, generation: 2 });
    expect(extractor.calls).toEqual(['tesla.md']);
    const index = (await loadSearchIndex(folders.indexDir))!;
    expect(bm25Search(index, 'Wardenclyffe', 5).map((h) => h.doc)).toEqual(['tesla.md']);
    expect(bm25Search(index, 'induction', 5)).toEqual([]);
  });

  it('notices a same-size rewrite that kept its mtime, by hashing files modified close to indexing time', async () => {
    const path = join(folders.documentsDir, 'oxygen.txt');
    // Whole seconds, so the restored mtime compares equal to the recorded one.
    const mtime = Math.floor(Date.now() / 1000);
    await utimes(path, mtime, mtime);
    await run();
    await folders.write('oxygen.txt', 'Oxygen is a chemical element with symbol O and atomic number 9.');
    await utimes(path, mtime, mtime);
    const summary = await run();
    expect(summary.updated).toBe(1);
  });

  it("removes a deleted file's chunks from the index and the search results", async () => {
    await run();
    await rm(join(folders.documentsDir, 'notes/warsaw.html'));
    const summary = await run();
    expect(summary).toMatchObject({ removed: 1, chunks: 2 });
    expect(await docsInIndex()).toEqual(['oxygen.txt', 'tesla.md']);
    const index = (await loadSearchIndex(folders.indexDir))!;
    expect(bm25Search(index, 'Warsaw Vistula', 5)).toEqual([]);
    const result = await readIndexStore(folders.indexDir);
    expect(result.status === 'ok' && Object.keys(result.store.files).sort()).toEqual(['oxygen.txt', 'tesla.md']);
  });

  it('keeps the vectors of unchanged files bit for bit when another file changes', async () => {
    await run({ vectorWeight: 1 });
    const before = (await loadSearchIndex(folders.indexDir))!;
    const oxygenBefore = (await before.vectorIndex(embedder)).search(Array.from((await embedder.embed(['oxygen']))[0]!), 3);
    await rm(join(folders.documentsDir, 'tesla.md'));
    await run({ vectorWeight: 1 });
    const after = (await loadSearchIndex(folders.indexDir))!;
    const oxygenAfter = (await after.vectorIndex(embedder)).search(Array.from((await embedder.embed(['oxygen']))[0]!), 2);
    const rowBefore = before.chunks.findIndex((c) => c.doc === 'oxygen.txt');
    const rowAfter = after.chunks.findIndex((c) => c.doc === 'oxygen.txt');
    expect(oxygenAfter.distances[oxygenAfter.labels.indexOf(rowAfter)]).toBe(oxygenBefore.distances[oxygenBefore.labels.indexOf(rowBefore)]);
  });

  it('rebuilds everything with a message when the embedding model changes', async () => {
    await run();
    extractor.calls.length = 0;
    const other = createLexicalEmbedder({ dimension: 128 });
    const summary = await run({ embedder: other });
    expect(summary).toMatchObject({ added: 3, rebuilt: true, chunks: 3 });
    expect(summary.messages[0]).toMatch(/embedding model changed from builtin:lexical-v2-256 .* to builtin:lexical-v2-128/);
    expect(extractor.calls.sort()).toEqual(['notes/warsaw.html', 'oxygen.txt', 'tesla.md']);
    const result = await readIndexStore(folders.indexDir);
    expect(result.status === 'ok' && [result.store.model, result.store.dimension]).toEqual(['builtin:lexical-v2-128', 128]);
  });

  it('chunks with the LLM when semantic chunking is configured, and rebuilds when the chunking changes', async () => {
    await run();
    const llm = new ScriptedLlm({ turns: ['NOTHING', 'NOTHING', 'NOTHING'] });
    const summary = await run({ chunking: 'semantic', llm });
    expect(summary).toMatchObject({ added: 3, rebuilt: true });
    expect(summary.messages[0]).toBe('chunking changed from structural-1000-150 to semantic-1000-150; rebuilding the index');
    expect(llm.requests).toHaveLength(3);
    const result = await readIndexStore(folders.indexDir);
    expect(result.status === 'ok' && result.store.chunker).toBe('semantic-1000-150');
  });

  it('rebuilds everything when asked to', async () => {
    await run();
    extractor.calls.length = 0;
    const summary = await run({ rebuild: true });
    expect(summary).toMatchObject({ added: 3, rebuilt: true });
    expect(extractor.calls).toHaveLength(3);
  });

  it('rebuilds an index whose metadata is corrupted, saying so', async () => {
    await run();
    await writeFile(join(folders.indexDir, 'metadata.json'), '{"format": "cortex-r-faiss-metadata", "chunks": [');
    const summary = await run();
    expect(summary).toMatchObject({ added: 3, rebuilt: true, chunks: 3 });
    expect(summary.messages[0]).toMatch(/unusable \(metadata\.json is not valid JSON/);
    expect((await readIndexStore(folders.indexDir)).status).toBe('ok');
  });

  it('rebuilds an index whose index.bin disagrees with its metadata', async () => {
    await run({ vectorWeight: 1 });
    const oldBin = await readFile(join(folders.indexDir, 'index.bin'));
    await rm(join(folders.documentsDir, 'oxygen.txt'));
    await run({ vectorWeight: 1 });
    // A crash that left the previous generation's index.bin beside the new metadata.
    await writeFile(join(folders.indexDir, 'index.bin'), oldBin);
    expect(await readIndexStore(folders.indexDir)).toMatchObject({ status: 'invalid', reason: expect.stringMatching(/checksum/) });
    const summary = await run({ vectorWeight: 1 });
    expect(summary).toMatchObject({ rebuilt: true, added: 2, chunks: 2 });
  });

  it('rebuilds when a file is missing or the generations differ', async () => {
    await run();
    const cache = await readFile(join(folders.indexDir, 'doc_index_cache.json'), 'utf8');
    await writeFile(join(folders.indexDir, 'doc_index_cache.json'), cache.replace('"generation": 1', '"generation": 7'));
    expect(await readIndexStore(folders.indexDir)).toMatchObject({ status: 'invalid', reason: expect.stringMatching(/generation 7/) });
    await rm(join(folders.indexDir, 'doc_index_cache.json'));
    expect(await readIndexStore(folders.indexDir)).toMatchObject({ status: 'invalid', reason: 'doc_index_cache.json missing' });
    expect((await run()).rebuilt).toBe(true);
  });

  it('skips a broken file with its reason on every run, indexes the rest, and retries it only once it changes', async () => {
    extractor.broken.add('oxygen.txt');
    const first = await run();
    expect(first).toMatchObject({ added: 2, chunks: 2 });
    expect(first.failed).toEqual([{ file: 'oxygen.txt', reason: 'parse_error: oxygen.txt is broken' }]);
    await age('oxygen.txt');
    extractor.calls.length = 0;
    const second = await run();
    expect(second).toMatchObject({ failed: [{ file: 'oxygen.txt', reason: 'parse_error: oxygen.txt is broken', earlier: true }], skipped: 2 });
    expect(extractor.calls).not.toContain('oxygen.txt');
    extractor.broken.clear();
    await folders.write('oxygen.txt', 'Oxygen, fixed: a chemical element.');
    const third = await run();
    expect(third).toMatchObject({ updated: 1, chunks: 3 });
  });

  it('reads the files that can hold images again once a vision model is set up, and only then', async () => {
    await folders.write('chart.png', 'not really a png');
    const first = await run();
    expect(first.failed.map((f) => f.file)).toEqual(['chart.png']);
    for (const rel of ['tesla.md', 'oxygen.txt', 'notes/warsaw.html', 'chart.png']) await age(rel);
    extractor.calls.length = 0;
    extractor.imageReader = 'ollama:llava';
    const second = await run();
    expect(extractor.calls.sort()).toEqual(['chart.png', 'notes/warsaw.html']);
    expect(second.messages).toContain('images are now read by ollama:llava; reading 2 files that can hold images again');
    expect(second).toMatchObject({ updated: 1, skipped: 2, chunks: 3 });
    extractor.calls.length = 0;
    // chart.png is still no picture: reported again, unchanged, with the three indexed files skipped.
    const third = await run();
    expect(third).toMatchObject({ updated: 0, skipped: 3 });
    expect(third.failed).toMatchObject([{ file: 'chart.png', earlier: true }]);
    // A reader that is gone (a model that is down) reads nothing again: what it read stays indexed.
    extractor.imageReader = undefined;
    expect(await run()).toMatchObject({ updated: 0, skipped: 3 });
    expect(extractor.calls).toEqual([]);
  });

  it('reports a file whose embedding failed and retries it on the next run', async () => {
    let fail = true;
    const flaky: Embedder = {
      id: embedder.id,
      dimension: embedder.dimension,
      embed: async (texts) => {
        if (fail && texts.some((t) => t.includes('Oxygen'))) throw new Error('model unreachable');
        return embedder.embed(texts);
      },
    };
    const first = await run({ embedder: flaky });
    expect(first.failed).toEqual([{ file: 'oxygen.txt', reason: 'embedding failed: model unreachable' }]);
    fail = false;
    const second = await run({ embedder: flaky });
    expect(second).toMatchObject({ added: 1, failed: [], chunks: 3 });
  });

  it('skips hidden files, temp files and its own index folder, and refuses symlinks', async () => {
    await folders.write('.hidden.md', 'secret hidden text');
    await folders.write('draft.md~', 'editor backup');
    await folders.write('a.md.cortex-tmp-1-ab', 'temp');
    await symlink('/etc/hostname', join(folders.documentsDir, 'link.txt'));
    const nestedIndex = join(folders.documentsDir, 'faiss_index');
    const summary = await run({ indexDir: nestedIndex });
    expect(summary.added).toBe(3);
    expect(summary.failed).toEqual([{ file: 'link.txt', reason: 'symbolic link, not followed' }]);
    const again = await run({ indexDir: nestedIndex });
    expect(again).toMatchObject({ added: 0, skipped: 3 });
  });

  it('empties the index when every document is gone', async () => {
    await run();
    for (const rel of ['tesla.md', 'oxygen.txt', 'notes/warsaw.html']) await rm(join(folders.documentsDir, rel));
    const summary = await run();
    expect(summary).toMatchObject({ removed: 3, chunks: 0 });
    const index = await loadSearchIndex(folders.indexDir);
    expect(index?.chunks).toEqual([]);
    expect(await vectorSearch(index!, embedder, 'oxygen', 5)).toEqual([]);
  });

  it('stores no vectors of the built-in embedder while the fused search gives them no weight; a vector search computes them', async () => {
    const summary = await run();
    const result = await readIndexStore(folders.indexDir);
    expect(result.status === 'ok' && result.store.vectorsStored).toBe(false);
    expect(summary.chunks).toBe(3);
    // index.bin is the 45-byte header of an empty flat index.
    expect((await stat(join(folders.indexDir, 'index.bin'))).size).toBeLessThan(100);
    const stored = join(folders.root, 'stored-index');
    await run({ indexDir: stored, vectorWeight: 1 });
    expect((await stat(join(stored, 'index.bin'))).size).toBeGreaterThan(3 * 256 * 4);
    const onDemand = await vectorSearch((await loadSearchIndex(folders.indexDir))!, embedder, 'oxygen atomic number', 3);
    expect(onDemand[0]?.doc).toBe('oxygen.txt');
    expect(onDemand).toEqual(await vectorSearch((await loadSearchIndex(stored))!, embedder, 'oxygen atomic number', 3));
  });

  it('stores the vectors of a model embedder even at weight 0: computing them again would ask the model', async () => {
    const model: Embedder = { id: 'fake:model', dimension: 256, vectorWeight: 0, embed: (texts) => embedder.embed(texts) };
    await run({ embedder: model });
    const result = await readIndexStore(folders.indexDir);
    expect(result.status === 'ok' && result.store.vectorsStored).toBe(true);
  });

  it('computes the vectors of indexed chunks, without extracting again, when the vector weight is raised; drops them when it is 0 again', async () => {
    await run();
    extractor.calls.length = 0;
    const raised = await run({ vectorWeight: 0.5 });
    expect(raised).toMatchObject({ changed: true, added: 0, generation: 2 });
    expect(raised.messages).toContain('the fused search now uses vectors; computing them for the 3 chunks already indexed');
    expect(extractor.calls).toEqual([]);
    const index = (await loadSearchIndex(folders.indexDir))!;
    const [oxygen] = await vectorSearch(index, embedder, 'Oxygen is a chemical element with symbol O and atomic number 8.', 1);
    expect(oxygen).toMatchObject({ doc: 'oxygen.txt' });
    expect(oxygen!.score).toBeCloseTo(1, 5);
    const lowered = await run({ vectorWeight: 0 });
    expect(lowered).toMatchObject({ changed: true, generation: 3 });
    const result = await readIndexStore(folders.indexDir);
    expect(result.status === 'ok' && result.store.vectorsStored).toBe(false);
    expect(extractor.calls).toEqual([]);
    expect(await run({ vectorWeight: 0 })).toMatchObject({ changed: false });
  });
});

describe('a missing documents folder', () => {
  it('is a DocumentsFolderError, and the index is left as it was', async () => {
    await run();
    await expect(run({ documentsDir: join(folders.root, 'no-such-folder') })).rejects.toThrow(/cannot read the documents folder .*no-such-folder: it does not exist/);
    expect(await docsInIndex()).toHaveLength(3);
  });
});

describe('extractions in flight', () => {
  /** An extractor that answers every file with one line a moment later, and counts the calls not yet answered. */
  function countingExtractor(): { extractor: Extractor; most: () => number } {
    let open = 0;
    let most = 0;
    const extractor: Extractor = {
      async extract(): Promise<ExtractionResult> {
        most = Math.max(most, ++open);
        await new Promise((resolve) => setTimeout(resolve, 1));
        open--;
        return { ok: true, format: 'txt', title: null, pages: [{ page: 1, text: 'one line' }], warnings: [] };
      },
      close: async () => undefined,
    };
    return { extractor, most: () => most };
  }

  it('keeps up to EXTRACTION_LOOKAHEAD_FILES small files in flight, so the extractor can batch them', async () => {
    for (let i = 0; i < EXTRACTION_LOOKAHEAD_FILES + 8; i++) await folders.write(`small/${i}.md`, `Small file ${i}.`);
    const counting = countingExtractor();
    const summary = await run({ extractor: counting.extractor });
    expect(summary.added).toBe(EXTRACTION_LOOKAHEAD_FILES + 11);
    expect(counting.most()).toBe(EXTRACTION_LOOKAHEAD_FILES);
  });

  it('keeps only EXTRACTION_LOOKAHEAD_MIN_FILES big files in flight, bounding the bytes held', async () => {
    // Four of them already pass the byte bound, so only the minimum is kept in flight.
    const big = 'x'.repeat(1.5 * 2 ** 20);
    expect(4 * big.length).toBeGreaterThan(EXTRACTION_LOOKAHEAD_BYTES);
    for (let i = 0; i < 8; i++) await folders.write(`big/${i}.txt`, big);
    await Promise.all(['tesla.md', 'oxygen.txt', 'notes/warsaw.html'].map((rel) => rm(join(folders.documentsDir, rel))));
    const counting = countingExtractor();
    const summary = await run({ extractor: counting.extractor });
    expect(summary.added).toBe(8);
    expect(counting.most()).toBe(EXTRACTION_LOOKAHEAD_MIN_FILES);
  });
});

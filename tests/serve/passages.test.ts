import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DOC_CACHE_FILE, METADATA_FILE } from '../../src/rag/index/index-files.js';
import { fromSentenceStart, indexFailures, MAX_SENTENCE_SKIP_CHARS, readPassage } from '../../src/serve/passages.js';

describe('fromSentenceStart', () => {
  it('leaves a passage that starts a sentence, a heading or a list as it is', () => {
    for (const text of ['The code is ZEBRA-42.', '# Launch notes\n\nText.', '- item one', '42 probes flew.', '"Quoted," she said.']) {
      expect(fromSentenceStart(text)).toEqual({ text, cut: false });
    }
  });

  it('starts a passage cut mid-sentence at its next sentence', () => {
    expect(fromSentenceStart('of the launch window. The code is ZEBRA-42.')).toEqual({ text: 'The code is ZEBRA-42.', cut: true });
    expect(fromSentenceStart('and more words\nNext line starts here.')).toEqual({ text: 'Next line starts here.', cut: true });
  });

  it('keeps the passage whole when no sentence starts near its beginning', () => {
    const long = `${'word '.repeat(MAX_SENTENCE_SKIP_CHARS / 5 + 10)}. Late sentence.`;
    expect(fromSentenceStart(long).cut).toBe(false);
    expect(fromSentenceStart('only lowercase words without an end')).toEqual({ text: 'only lowercase words without an end', cut: false });
  });
});

function indexDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'cortex-passages-'));
  mkdirSync(dir, { recursive: true });
  const chunk = (doc: string, n: number, format: string, page: number, text: string) => ({ doc, chunk_id: `${doc}#${n}`, page, format, chunk: text });
  writeFileSync(
    join(dir, METADATA_FILE),
    JSON.stringify({
      format: 'cortex-r-faiss-metadata',
      version: 1,
      generation: 3,
      model: 'lexical',
      dimension: 8,
      metric: 'inner_product',
      chunker: 'structural',
      count: 2,
      index_sha256: '0'.repeat(64),
      updated_at: new Date(0).toISOString(),
      chunks: [chunk('notes.md', 0, 'md', 1, 'Notes begin here.'), chunk('report.pdf', 4, 'pdf', 7, 'budget, and then. The budget was 3.4 million euros.')],
    }),
  );
  const entry = { hash: '', size: 1, mtime_ms: 0, indexed_at_ms: 0, model: 'lexical' };
  writeFileSync(
    join(dir, DOC_CACHE_FILE),
    JSON.stringify({
      format: 'cortex-r-doc-index-cache',
      version: 1,
      generation: 3,
      model: 'lexical',
      chunker: 'structural',
      files: { 'notes.md': { ...entry, chunk_ids: ['notes.md#0'] }, 'broken.pdf': { ...entry, chunk_ids: [], failed: 'not a readable PDF' } },
    }),
  );
  return dir;
}

describe('readPassage', () => {
  it('finds a passage by id with its file, and its page for a PDF, from a sentence start', async () => {
    const dir = indexDir();
    expect(await readPassage(dir, 'notes.md#0')).toEqual({ doc: 'notes.md', chunk_id: 'notes.md#0', page: null, text: 'Notes begin here.', cut: false });
    expect(await readPassage(dir, 'report.pdf#4')).toEqual({ doc: 'report.pdf', chunk_id: 'report.pdf#4', page: 7, text: 'The budget was 3.4 million euros.', cut: true });
  });

  it('returns null for an id the index does not hold, or when there is no index', async () => {
    expect(await readPassage(indexDir(), 'notes.md#9')).toBeNull();
    expect(await readPassage(mkdtempSync(join(tmpdir(), 'cortex-no-index-')), 'notes.md#0')).toBeNull();
  });
});

describe('indexFailures', () => {
  it('maps each file the indexer could not read to its reason', async () => {
    expect([...(await indexFailures(indexDir()))]).toEqual([['broken.pdf', 'not a readable PDF']]);
    expect((await indexFailures(mkdtempSync(join(tmpdir(), 'cortex-no-index-')))).size).toBe(0);
  });
});

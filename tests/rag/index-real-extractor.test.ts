// The indexer with part A's real extractor (worker thread): real PDF pages, HTML through readability, a broken file skipped.
import { createHash } from 'node:crypto';
import { copyFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/paths.js';
import { createLexicalEmbedder } from '../../src/rag/embed/lexical-embedder.js';
import { indexFolder } from '../../src/rag/index-folder.js';
import type { IndexSummary } from '../../src/rag/index/index-documents.js';
import { readIndexStore } from '../../src/rag/index/index-store.js';
import { hybridSearch } from '../../src/rag/search/retrievers.js';
import { loadSearchIndex, type SearchIndex } from '../../src/rag/search/search-index.js';
import { makeTempFolders, type TempFolders } from './temp-folders.js';

const embedder = createLexicalEmbedder();
let folders: TempFolders;
let summary: IndexSummary;
let index: SearchIndex;

beforeAll(async () => {
  folders = await makeTempFolders();
  await copyFile(join(PROJECT_ROOT, 'tests/fixtures/corpus/pdf/wind-report.pdf'), join(folders.documentsDir, 'wind-report.pdf'));
  await copyFile(join(PROJECT_ROOT, 'tests/fixtures/corpus/documents/warsaw-1.html'), join(folders.documentsDir, 'warsaw.html'));
  await folders.write('notes/plan.md', '# Plan\n\nThe launch of the lunar rover is planned for October.');
  await writeFile(join(folders.documentsDir, 'broken.pdf'), '%PDF-1.4\nthis is not really a pdf');
  await writeFile(join(folders.documentsDir, 'image.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47]));
  summary = await indexFolder({ documentsDir: folders.documentsDir, indexDir: folders.indexDir, embedder });
  index = (await loadSearchIndex(folders.indexDir))!;
});

afterAll(async () => {
  await folders.remove();
});

describe('indexFolder with the real extractor', () => {
  it('indexes the readable files and skips the broken and unsupported ones with their reasons', () => {
    expect(summary.added).toBe(3);
    expect(summary.failed.map((f) => f.file).sort()).toEqual(['broken.pdf', 'image.png']);
    expect(summary.failed.find((f) => f.file === 'image.png')?.reason).toMatch(/^unsupported: /);
    expect(summary.failed.find((f) => f.file === 'broken.pdf')?.reason).toMatch(/^(parse_error|no_text): /);
  });

  it('records the SHA-256 of each file it read, extracted or not, so unchanged files are recognised next run', async () => {
    const store = await readIndexStore(folders.indexDir);
    if (store.status !== 'ok') throw new Error(`index ${store.status}`);
    for (const name of ['wind-report.pdf', 'notes/plan.md', 'broken.pdf']) {
      const bytes = await readFile(join(folders.documentsDir, name));
      expect(store.store.files[name]?.hash, name).toBe(createHash('sha256').update(bytes).digest('hex'));
    }
  });

  it('keeps PDF page numbers and finds HTML text', async () => {
    const [pdfHit] = await hybridSearch(index, embedder, 'Hollowmere gigawatt hours produced', 1);
    expect(pdfHit).toMatchObject({ doc: 'wind-report.pdf', page: 2, format: 'pdf' });
    const [htmlHit] = await hybridSearch(index, embedder, 'Which famous scientist was born in Warsaw?', 1);
    expect(htmlHit).toMatchObject({ doc: 'warsaw.html', format: 'html' });
    expect(htmlHit!.text).toContain('Curie');
  });
});

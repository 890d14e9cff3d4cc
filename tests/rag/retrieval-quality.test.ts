// Recall@5 of the three retrievers on the fixture corpus (a quality floor, not a timing).
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/paths.js';
import { createLexicalEmbedder } from '../../src/rag/embed/lexical-embedder.js';
import { createExtractor } from '../../src/rag/extract/create-extractor.js';
import { indexDocuments } from '../../src/rag/index/index-documents.js';
import { evaluateRetrieval, type RetrievalPair } from '../helpers/evaluate-retrieval.js';
import { loadSearchIndex, type SearchIndex } from '../../src/rag/search/search-index.js';

const CORPUS = join(PROJECT_ROOT, 'tests/fixtures/corpus');
const pairs = (JSON.parse(readFileSync(join(CORPUS, 'retrieval-set.json'), 'utf8')) as { pairs: RetrievalPair[] }).pairs;
const embedder = createLexicalEmbedder();
let indexDir: string;
let index: SearchIndex;

beforeAll(async () => {
  indexDir = await mkdtemp(join(tmpdir(), 'cortex-recall-'));
  const documentsDir = join(CORPUS, 'documents');
  // The real extractor (worker thread, readability for the HTML documents): needs the build.
  const extractor = createExtractor({ documentsDir });
  try {
    const summary = await indexDocuments({ documentsDir, indexDir, embedder, extractor });
    expect(summary.failed).toEqual([]);
  } finally {
    await extractor.close();
  }
  index = (await loadSearchIndex(indexDir))!;
});

afterAll(async () => {
  await rm(indexDir, { recursive: true, force: true });
});

describe('retrieval quality on the fixture corpus', () => {
  it('has at least 30 documents and 20 labelled questions', () => {
    expect(index.documents).toBeGreaterThanOrEqual(30);
    expect(pairs.length).toBeGreaterThanOrEqual(20);
  });

  it('finds the expected document in the top 5 for most questions with each retriever', async () => {
    const { recall } = await evaluateRetrieval({ index, embedder, pairs, k: 5 });
    // Floors a little under the measured figures (vector 0.97, BM25 1.0, hybrid = BM25 with the built-in embedder): they catch a broken
    // tokenizer, embedder or fusion, not a one-question wobble.
    expect(recall.hybrid).toBeGreaterThanOrEqual(0.9);
    expect(recall.bm25).toBeGreaterThanOrEqual(0.9);
    expect(recall.vector).toBeGreaterThanOrEqual(0.9);
  });
});

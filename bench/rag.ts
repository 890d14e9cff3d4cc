// Benchmark: the RAG pipeline — indexing throughput, unchanged re-index, query latency at 10k/100k chunks, recall@5.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, mkdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PROJECT_ROOT } from '../src/paths.js';
import { createLexicalEmbedder } from '../src/rag/embed/lexical-embedder.js';
import { embedTexts } from '../src/rag/embed/embed-texts.js';
import { createExtractor } from '../src/rag/extract/create-extractor.js';
import type { ChunkRecord } from '../src/rag/index/index-files.js';
import { indexDocuments } from '../src/rag/index/index-documents.js';
import { evaluateRetrieval, RETRIEVERS, type RetrievalPair } from '../src/rag/search/evaluate-retrieval.js';
import { retrieve } from '../src/rag/search/retrievers.js';
import { createSearchIndex, loadSearchIndex } from '../src/rag/search/search-index.js';
import { median, round, withTarget, type Figure } from './stats.js';

/** Documents in the generated corpus, and their rough size. */
const CORPUS_DOCUMENTS = 1_000;
const PARAGRAPHS_PER_DOCUMENT = 5;
/** Chunk counts at which query latency is measured. */
const LATENCY_SIZES = [10_000, 100_000];
/** Timed queries per size (after one warm-up query, which also builds BM25). */
const LATENCY_RUNS = 9;
/** Re-index runs of the unchanged corpus. */
const REINDEX_RUNS = 3;
const FIXTURE = join(PROJECT_ROOT, 'tests/fixtures/corpus');
const SQUAD = join(PROJECT_ROOT, '..', 'shared/data/squad-v1.1-dev/dev-v1.1.json');

/** mulberry32: a tiny seeded PRNG, so the generated corpus is the same on every run. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Words of the fixture corpus: a realistic vocabulary and word-frequency mix for generated text. */
function vocabulary(): string[] {
  const dir = join(FIXTURE, 'documents');
  const text = readdirSync(dir).map((name) => readFileSync(join(dir, name), 'utf8').replace(/<[^>]+>/g, ' ')).join(' ');
  return text.split(/\s+/).map((w) => w.replace(/[^\p{L}\p{N}'-]/gu, '')).filter(Boolean);
}

/** Text generator: sentences of 8–24 words drawn from the vocabulary. */
function sentences(random: () => number, words: string[]): (count: number) => string {
  const sentence = () => {
    const n = 8 + Math.floor(random() * 17);
    const out: string[] = [];
    for (let i = 0; i < n; i++) out.push(words[Math.floor(random() * words.length)]!);
    const text = out.join(' ');
    return `${text[0]!.toUpperCase()}${text.slice(1)}.`;
  };
  return (count) => Array.from({ length: count }, sentence).join(' ');
}

async function generateCorpus(dir: string, words: string[]): Promise<number> {
  const random = prng(42);
  const text = sentences(random, words);
  let bytes = 0;
  const past = new Date(Date.now() - 3_600_000);
  for (let i = 0; i < CORPUS_DOCUMENTS; i++) {
    const sub = join(dir, `group-${String(i % 20).padStart(2, '0')}`);
    await mkdir(sub, { recursive: true });
    const body = [`# Document ${i}`, ...Array.from({ length: PARAGRAPHS_PER_DOCUMENT }, (_, p) => `## Section ${p + 1}\n\n${text(4 + Math.floor(random() * 4))}`)].join('\n\n');
    const path = join(sub, `doc-${String(i).padStart(4, '0')}.md`);
    await writeFile(path, body);
    // An hour old, so unchanged re-runs measure the stat-only path rather than the recently-modified re-hash.
    await utimes(path, past, past);
    bytes += Buffer.byteLength(body);
  }
  return bytes;
}

async function indexingFigures(words: string[]): Promise<Figure[]> {
  const root = await mkdtemp(join(tmpdir(), 'cortex-bench-rag-'));
  const documentsDir = join(root, 'documents');
  const indexDir = join(root, 'faiss_index');
  const extractor = createExtractor({ documentsDir });
  const embedder = createLexicalEmbedder();
  try {
    const bytes = await generateCorpus(documentsDir, words);
    const first = await indexDocuments({ documentsDir, indexDir, embedder, extractor });
    const seconds = first.ms / 1000;
    const reruns: number[] = [];
    for (let i = 0; i < REINDEX_RUNS; i++) reruns.push((await indexDocuments({ documentsDir, indexDir, embedder, extractor })).ms);
    // One file gone: its rows leave, every kept vector is copied into a new index.bin (faiss-node cannot remove in place).
    await rm(join(documentsDir, 'group-00', 'doc-0000.md'));
    const removal = await indexDocuments({ documentsDir, indexDir, embedder, extractor });
    // Every file touched (new mtime, same bytes): each one is hashed again, none re-extracted.
    const now = new Date();
    for (const group of readdirSync(documentsDir)) for (const name of readdirSync(join(documentsDir, group))) await utimes(join(documentsDir, group, name), now, now);
    const touched = await indexDocuments({ documentsDir, indexDir, embedder, extractor });
    const note = `${CORPUS_DOCUMENTS} generated markdown files, ${round(bytes / 2 ** 20)} MiB, ${first.chunks} chunks, built-in embedder, real extractor`;
    return [
      { bench: 'rag', name: 'index a new corpus', value: round(first.ms), unit: 'ms', note },
      { bench: 'rag', name: 'indexing throughput', value: round(bytes / 2 ** 20 / seconds), unit: 'MiB/s', note },
      { bench: 'rag', name: 'indexing throughput', value: round(first.chunks / seconds), unit: 'chunks/s', note },
      withTarget({ bench: 'rag', name: 're-index, nothing changed', value: round(median(reruns)), unit: 'ms', runs: REINDEX_RUNS, note: `${CORPUS_DOCUMENTS} files, size and mtime unchanged` }, { max: 500 }),
      { bench: 'rag', name: 're-index, every file touched', value: round(touched.ms), unit: 'ms', note: `every file re-hashed, ${touched.skipped} found unchanged` },
      { bench: 'rag', name: 're-index, one file deleted', value: round(removal.ms), unit: 'ms', note: `${removal.chunks} chunks kept and rewritten` },
    ];
  } finally {
    await extractor.close();
    await rm(root, { recursive: true, force: true });
  }
}

async function latencyFigures(words: string[]): Promise<Figure[]> {
  const embedder = createLexicalEmbedder();
  const random = prng(7);
  const text = sentences(random, words);
  const largest = Math.max(...LATENCY_SIZES);
  const chunks: ChunkRecord[] = [];
  // About 1,000 characters each, like the structural chunker's output.
  for (let i = 0; i < largest; i++) chunks.push({ doc: `doc-${Math.floor(i / 10)}.md`, chunk_id: `doc-${Math.floor(i / 10)}.md#${i % 10}`, page: 1, format: 'md', chunk: text(7) });
  const vectors = new Float32Array(largest * embedder.dimension);
  const started = performance.now();
  const embedded = await embedTexts(embedder, chunks.map((c) => c.chunk));
  const embedMs = performance.now() - started;
  embedded.forEach((v, i) => vectors.set(v, i * embedder.dimension));
  embedded.length = 0;
  const queries = Array.from({ length: LATENCY_RUNS + 1 }, () => text(1).split(' ').slice(0, 6).join(' '));
  const figures: Figure[] = [{ bench: 'rag', name: 'embedding throughput', value: round(largest / (embedMs / 1000)), unit: 'chunks/s', note: 'built-in embedder, ~1,000-character chunks' }];
  for (const size of LATENCY_SIZES) {
    const index = createSearchIndex({ chunks: chunks.slice(0, size), vectors: vectors.subarray(0, size * embedder.dimension), model: embedder.id, dimension: embedder.dimension });
    const bm25Started = performance.now();
    index.bm25();
    figures.push({ bench: 'rag', name: `BM25 build, ${size.toLocaleString('en')} chunks`, value: round(performance.now() - bm25Started), unit: 'ms', note: 'rebuilt from the chunk texts when an index is loaded (first query)' });
    for (const retriever of ['hybrid', 'vector', 'bm25'] as const) {
      await retrieve(retriever, index, embedder, queries[0]!, 5); // warm-up
      const times: number[] = [];
      for (const query of queries.slice(1)) {
        const t = performance.now();
        await retrieve(retriever, index, embedder, query, 5);
        times.push(performance.now() - t);
      }
      const figure: Figure = { bench: 'rag', name: `query latency, ${retriever}, ${size.toLocaleString('en')} chunks`, value: round(median(times)), unit: 'ms', runs: times.length, note: 'top 5, query embedding included' };
      figures.push(retriever === 'hybrid' && size === 100_000 ? withTarget(figure, { max: 20 }) : figure);
    }
  }
  return figures;
}

async function fixtureRecall(): Promise<Figure[]> {
  const root = await mkdtemp(join(tmpdir(), 'cortex-bench-recall-'));
  const documentsDir = join(FIXTURE, 'documents');
  const extractor = createExtractor({ documentsDir });
  const embedder = createLexicalEmbedder();
  try {
    await indexDocuments({ documentsDir, indexDir: root, embedder, extractor });
    const index = (await loadSearchIndex(root))!;
    const pairs = (JSON.parse(readFileSync(join(FIXTURE, 'retrieval-set.json'), 'utf8')) as { pairs: RetrievalPair[] }).pairs;
    const { recall } = await evaluateRetrieval({ index, embedder, pairs, k: 5 });
    const note = `fixture corpus: ${index.documents} documents, ${index.chunks.length} chunks, ${pairs.length} questions`;
    return RETRIEVERS.map((r) => ({ bench: 'rag', name: `recall@5, ${r}, fixture corpus`, value: round(recall[r], 3), unit: '', note }));
  } finally {
    await extractor.close();
    await rm(root, { recursive: true, force: true });
  }
}

async function squadRecall(): Promise<Figure[]> {
  if (!existsSync(SQUAD)) {
    // No figure rather than a 0 that would read as a measured recall.
    process.stderr.write(`rag bench: SQuAD dev recall skipped: ${SQUAD} is not present\n`);
    return [];
  }
  const data = JSON.parse(readFileSync(SQUAD, 'utf8')) as { data: Array<{ paragraphs: Array<{ context: string; qas: Array<{ question: string }> }> }> };
  const chunks: ChunkRecord[] = [];
  const pairs: RetrievalPair[] = [];
  for (const article of data.data) {
    for (const paragraph of article.paragraphs) {
      const doc = `p${chunks.length}`;
      chunks.push({ doc, chunk_id: `${doc}#0`, page: 1, format: 'txt', chunk: paragraph.context });
      for (const qa of paragraph.qas) pairs.push({ question: qa.question, expected: doc });
    }
  }
  const embedder = createLexicalEmbedder();
  const vectors = new Float32Array(chunks.length * embedder.dimension);
  (await embedTexts(embedder, chunks.map((c) => c.chunk))).forEach((v, i) => vectors.set(v, i * embedder.dimension));
  const index = createSearchIndex({ chunks, vectors, model: embedder.id, dimension: embedder.dimension });
  const { recall } = await evaluateRetrieval({ index, embedder, pairs, k: 5 });
  const note = `SQuAD v1.1 dev: ${chunks.length} paragraphs as passages, ${pairs.length} questions, built-in embedder`;
  return RETRIEVERS.map((r) => ({ bench: 'rag', name: `recall@5, ${r}, SQuAD dev`, value: round(recall[r], 3), unit: '', note }));
}

/** Runs every RAG figure; about a minute or two on 2 cores. */
export async function runRagBench(): Promise<Figure[]> {
  const words = vocabulary();
  return [...(await indexingFigures(words)), ...(await latencyFigures(words)), ...(await fixtureRecall()), ...(await squadRecall())];
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const figure of await runRagBench()) console.log(JSON.stringify(figure));
}

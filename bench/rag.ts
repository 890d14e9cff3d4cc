// Benchmark: the RAG pipeline — indexing throughput, unchanged re-index, query latency at 10k/100k chunks, recall@5.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdtemp, mkdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { builtPath, PROJECT_ROOT } from '../src/paths.js';
import { chunkerId } from '../src/rag/chunk/chunk-document.js';
import type { DocEntry } from '../src/rag/index/index-files.js';
import { writeIndexStore } from '../src/rag/index/index-store.js';
import { buildBm25Data } from '../src/rag/search/bm25.js';
import { terms } from '../src/rag/text/tokenize.js';
import { createLexicalEmbedder } from '../src/rag/embed/lexical-embedder.js';
import { embedTexts } from '../src/rag/embed/embed-texts.js';
import { createExtractor } from '../src/rag/extract/create-extractor.js';
import type { ChunkRecord } from '../src/rag/index/index-files.js';
import { indexDocuments } from '../src/rag/index/index-documents.js';
import { retrieve, vectorSearch } from '../src/rag/search/retrievers.js';
import { loadSearchIndex, type SearchIndex } from '../src/rag/search/search-index.js';
import type { Embedder } from '../src/rag/embed/embedder.js';
import { ANN_MIN_CHUNKS, decodeAnnFile, encodeAnnFile } from '../src/rag/index/ann-index.js';
import { runRetrievalBench } from './retrieval.js';
import { median, round, timeRuns, withTarget, type Figure } from './stats.js';

/** Documents in the generated corpus, and their rough size. */
const CORPUS_DOCUMENTS = 1_000;
const PARAGRAPHS_PER_DOCUMENT = 5;
/** Chunk counts at which query latency is measured. */
const LATENCY_SIZES = (process.env.CORTEX_BENCH_SIZES ?? "10000,100000").split(",").map(Number);
/** Timed queries per size (after one warm-up query, which also loads BM25). */
const LATENCY_RUNS = 21;
/** Chunks per generated file in the latency corpus. */
const CHUNKS_PER_FILE = 10;
/** Re-index runs of the unchanged corpus. */
const REINDEX_RUNS = 3;
const FIXTURE = join(PROJECT_ROOT, 'tests/fixtures/corpus');

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
    // The same corpus with the built-in vectors computed and stored (profile rag.vector_weight above 0).
    const withVectors = await indexDocuments({ documentsDir, indexDir: join(root, 'faiss_index_vectors'), embedder, extractor, vectorWeight: 1 });
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
      withTarget({ bench: 'rag', name: 'indexing throughput', value: round(bytes / 2 ** 20 / seconds), unit: 'MiB/s', note }, { min: 5 }),
      { bench: 'rag', name: 'indexing throughput', value: round(first.chunks / seconds), unit: 'chunks/s', note },
      { bench: 'rag', name: 'indexing throughput, vectors stored', value: round(bytes / 2 ** 20 / (withVectors.ms / 1000)), unit: 'MiB/s', note: `${note}, rag.vector_weight 1` },
      withTarget({ bench: 'rag', name: 're-index, nothing changed', value: round(median(reruns)), unit: 'ms', runs: REINDEX_RUNS, note: `${CORPUS_DOCUMENTS} files, size and mtime unchanged` }, { max: 500 }),
      { bench: 'rag', name: 're-index, every file touched', value: round(touched.ms), unit: 'ms', note: `every file re-hashed, ${touched.skipped} found unchanged` },
      { bench: 'rag', name: 're-index, one file deleted', value: round(removal.ms), unit: 'ms', note: `${removal.chunks} chunks kept and rewritten` },
    ];
  } finally {
    await extractor.close();
    await rm(root, { recursive: true, force: true });
  }
}

/**
 * A documents folder of `size` chunks (ten ~1,000-character chunks per markdown file) and its index written directly
 * as the indexer writes it for the built-in embedder (no vectors, BM25 postings, a doc cache matching the files), so
 * the server finds it current.
 */
async function writeLargeIndex(root: string, size: number, chunksAll: ChunkRecord[], embedderId: string, dimension: number): Promise<{ documentsDir: string; indexDir: string }> {
  const documentsDir = join(root, 'documents');
  const indexDir = join(root, 'faiss_index');
  const chunks = chunksAll.slice(0, size);
  const files: Record<string, DocEntry> = {};
  const past = new Date(Date.now() - 3_600_000);
  for (let start = 0; start < size; start += CHUNKS_PER_FILE) {
    const doc = chunks[start]!.doc;
    const dir = join(documentsDir, doc.split('/')[0]!);
    await mkdir(dir, { recursive: true });
    const body = chunks.slice(start, start + CHUNKS_PER_FILE).map((c) => c.chunk).join('\n\n');
    const path = join(documentsDir, doc);
    await writeFile(path, body);
    await utimes(path, past, past);
    files[doc] = { hash: 'bench', size: Buffer.byteLength(body), mtime_ms: statSync(path).mtimeMs, indexed_at_ms: Date.now(), model: embedderId, format: 'md', title: null, chunk_ids: chunks.slice(start, start + CHUNKS_PER_FILE).map((c) => c.chunk_id) };
  }
  const bm25 = buildBm25Data(chunks.map((c) => terms(c.chunk)));
  await writeIndexStore(indexDir, { generation: 1, model: embedderId, dimension, chunker: chunkerId(), chunks, vectors: null, files, bm25 });
  return { documentsDir, indexDir };
}

/** Milliseconds per search_stored_documents call through the documents MCP server over stdio (the path the agent uses). */
async function mcpCallTimes(documentsDir: string, indexDir: string, queries: string[]): Promise<{ first: number; times: number[] }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [builtPath('mcp-servers/documents/main.js')],
    env: { PATH: process.env.PATH ?? '', CORTEX_DOCUMENTS_DIR: documentsDir, CORTEX_FAISS_DIR: indexDir, CORTEX_EMBEDDING: 'builtin', CORTEX_INDEX_AT_START: '0' },
    stderr: process.env.CORTEX_BENCH_STDERR ? 'inherit' : 'ignore',
  });
  const client = new Client({ name: 'cortex-bench-rag', version: '0.0.0' });
  await client.connect(transport);
  try {
    const call = async (query: string) => {
      const result = (await client.callTool({ name: 'search_stored_documents', arguments: { query, k: 5 } })) as CallToolResult;
      if (result.isError) throw new Error(`search failed: ${JSON.stringify(result.content)}`);
    };
    let t = performance.now();
    await call(queries[0]!); // loads the index (checks the folder, reads index.bin and bm25.bin)
    const first = performance.now() - t;
    const times: number[] = [];
    for (const query of queries.slice(1)) {
      t = performance.now();
      await call(query);
      times.push(performance.now() - t);
    }
    return { first, times };
  } finally {
    await client.close();
  }
}

/** Queries whose approximate top 10 is compared with the exact top 10. */
const ANN_RECALL_QUERIES = 100;

/**
 * Recall@10 and latency of the approximate (IVF) vector search against exact search on the same vectors. The
 * built-in embedder's indexes get no ann.bin (their vectors are not fused), so it is built here as an embedding
 * model's index would be.
 */
async function annFigures(flatIndex: SearchIndex, vectors: Float32Array, embedder: Embedder, queries: string[], count: string): Promise<Figure[]> {
  const ann = decodeAnnFile(encodeAnnFile(1, embedder.dimension, vectors), 1, flatIndex.chunks.length);
  const index: SearchIndex = { ...flatIndex, ann };
  const random = prng(11);
  // Queries of two kinds: the generated short ones, and chunk openings (whose own chunk is the right answer).
  const probes = Array.from({ length: ANN_RECALL_QUERIES }, (_, i) =>
    i % 2 ? queries[i % queries.length]! : index.chunks[Math.floor(random() * index.chunks.length)]!.chunk.slice(0, 200),
  );
  let found = 0;
  const approxTimes: number[] = [];
  const exactTimes: number[] = [];
  for (const probe of probes) {
    let t = performance.now();
    const approx = await vectorSearch(index, embedder, probe, 10);
    approxTimes.push(performance.now() - t);
    t = performance.now();
    const exact = await vectorSearch(index, embedder, probe, 10, true);
    exactTimes.push(performance.now() - t);
    const rows = new Set(exact.map((h) => h.row));
    found += approx.filter((h) => rows.has(h.row)).length;
  }
  const note = `IVF over ${index.chunks.length} built-in-embedder vectors of generated text, a quarter of the cells probed, ${ANN_RECALL_QUERIES} queries`;
  return [
    { bench: 'rag', name: `ANN recall@10 vs exact, ${count} chunks`, value: round(found / (10 * probes.length), 3), unit: '', note },
    { bench: 'rag', name: `vector query, approximate, ${count} chunks`, value: round(median(approxTimes)), unit: 'ms', note },
    { bench: 'rag', name: `vector query, exact, ${count} chunks`, value: round(median(exactTimes)), unit: 'ms', note },
  ];
}

async function latencyFigures(words: string[]): Promise<Figure[]> {
  const embedder = createLexicalEmbedder();
  const random = prng(7);
  const text = sentences(random, words);
  const largest = Math.max(...LATENCY_SIZES);
  const chunks: ChunkRecord[] = [];
  // About 1,000 characters each, like the structural chunker's output; ten per file.
  for (let i = 0; i < largest; i++) {
    const file = Math.floor(i / CHUNKS_PER_FILE);
    const doc = `group-${String(file % 100).padStart(2, '0')}/doc-${file}.md`;
    chunks.push({ doc, chunk_id: `${doc}#${i % CHUNKS_PER_FILE}`, page: 1, format: 'md', chunk: text(7) });
  }
  const vectors = new Float32Array(largest * embedder.dimension);
  const started = performance.now();
  const embedded = await embedTexts(embedder, chunks.map((c) => c.chunk));
  const embedMs = performance.now() - started;
  embedded.forEach((v, i) => vectors.set(v, i * embedder.dimension));
  embedded.length = 0;
  const queries = Array.from({ length: LATENCY_RUNS + 1 }, () => text(1).split(' ').slice(0, 6).join(' '));
  const figures: Figure[] = [{ bench: 'rag', name: 'embedding throughput', value: round(largest / (embedMs / 1000)), unit: 'chunks/s', note: 'built-in embedder, ~1,000-character chunks' }];
  for (const size of LATENCY_SIZES) {
    const root = await mkdtemp(join(tmpdir(), 'cortex-bench-latency-'));
    try {
      const { documentsDir, indexDir } = await writeLargeIndex(root, size, chunks, embedder.id, embedder.dimension);
      const count = size.toLocaleString('en');
      let t = performance.now();
      const index = (await loadSearchIndex(indexDir))!;
      const loadMs = performance.now() - t;
      t = performance.now();
      index.bm25();
      figures.push({ bench: 'rag', name: `index load, ${count} chunks`, value: round(loadMs), unit: 'ms', note: 'metadata, doc cache and bm25.bin read and checked; built-in vectors not stored' });
      figures.push({ bench: 'rag', name: `BM25 ready, ${count} chunks`, value: round(performance.now() - t), unit: 'ms', note: 'from the saved bm25.bin (was 10 s rebuilt from the texts at 100k)' });
      t = performance.now();
      await index.vectorIndex(embedder);
      figures.push({ bench: 'rag', name: `vectors computed on demand, ${count} chunks`, value: round(performance.now() - t), unit: 'ms', note: 'first vector search of an index without stored vectors' });
      for (const retriever of ['hybrid', 'vector', 'bm25'] as const) {
        const times = await timeRuns(LATENCY_RUNS, async () => retrieve(retriever, index, embedder, queries[Math.floor(Math.random() * queries.length)]!, 5));
        figures.push({ bench: 'rag', name: `query latency, ${retriever === 'hybrid' ? 'fused' : retriever}, ${count} chunks`, value: round(median(times)), unit: 'ms', runs: times.length, note: 'in process, top 5, query embedding included' });
      }
      if (size >= ANN_MIN_CHUNKS) figures.push(...(await annFigures(index, vectors.subarray(0, size * embedder.dimension), embedder, queries, count)));
      const { first, times } = await mcpCallTimes(documentsDir, indexDir, queries);
      figures.push({ bench: 'rag', name: `first search_stored_documents call, ${count} chunks`, value: round(first), unit: 'ms', note: 'MCP over stdio; scans the folder and loads the index' });
      figures.push(
        withTarget(
          { bench: 'rag', name: `search_stored_documents call, ${count} chunks`, value: round(median(times)), unit: 'ms', runs: times.length, note: 'MCP over stdio, top 5, nothing changed in the folder' },
          { max: size >= 100_000 ? 20 : 10 },
        ),
      );
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  }
  return figures;
}

/** The parts of the RAG benchmark, runnable alone: `node dist/bench/rag.js latency`. */
const PARTS: Record<string, (words: string[]) => Promise<Figure[]>> = {
  indexing: indexingFigures,
  latency: latencyFigures,
  // nDCG@10 and recall@5 of vector, BM25 and fused search on SQuAD dev (by paragraph and by article) and the fixture corpus.
  retrieval: () => runRetrievalBench(),
};

/** Runs every RAG figure (or the named parts); several minutes on 2 cores, most of it the 100k-chunk corpus and SQuAD. */
export async function runRagBench(parts: string[] = Object.keys(PARTS)): Promise<Figure[]> {
  const words = vocabulary();
  const figures: Figure[] = [];
  for (const part of parts) figures.push(...(await PARTS[part]!(words)));
  return figures;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const parts = process.argv.slice(2);
  for (const figure of await runRagBench(parts.length ? parts : undefined)) console.log(JSON.stringify(figure));
}

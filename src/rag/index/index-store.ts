// Reads and writes the three index files as one consistent unit: generation numbers and index.bin's SHA-256 tie them together.
import { createHash } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { errorMessage } from '../../errors.js';
import type { Bm25Data } from '../search/bm25.js';
import { writeFileAtomic } from '../../atomic-write.js';
import { ANN_FILE, encodeAnnFile, wantsAnnIndex } from './ann-index.js';
import { BM25_FILE, decodeBm25File, encodeBm25File } from './bm25-file.js';
import { assertEncoderMatchesFaiss, encodeFlatIndex, readFlatIndexHeader } from './flat-index-file.js';
import {
  type ChunkRecord,
  DOC_CACHE_FILE,
  DocCacheFileSchema,
  type DocEntry,
  INDEX_FILE,
  INDEX_LAYOUT_VERSION,
  METADATA_FILE,
  MetadataFileSchema,
} from './index-files.js';

/** Everything an index holds, as the indexer and the searcher use it. */
export interface IndexStore {
  generation: number;
  model: string;
  dimension: number;
  chunker: string;
  /** One record per chunk, in vector order. */
  chunks: ChunkRecord[];
  /** index.bin's bytes as read (searchers hand them to faiss); it holds no vectors when `vectorsStored` is false. */
  indexBytes: Buffer;
  /** False when the vectors are computed on demand (metadata.json `vectors: on_demand`). */
  vectorsStored: boolean;
  files: Record<string, DocEntry>;
  /** bm25.bin's bytes as read, decoded only by those who use them ({@link savedBm25}); null when missing. */
  bm25Bytes: Buffer | null;
}

export type ReadIndexResult =
  | { status: 'missing' }
  | { status: 'ok'; store: IndexStore }
  /** The files exist but disagree or cannot be read; `reason` is one sentence for the rebuild message. */
  | { status: 'invalid'; reason: string };

/** The file's bytes; null when it does not exist. @throws other I/O errors (permissions). */
export async function readOptional(path: string): Promise<Buffer | null> {
  try {
    return await readFile(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

function parseJson(bytes: Buffer, name: string): unknown {
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch (err) {
    throw new Error(`${name} is not valid JSON (${errorMessage(err)})`);
  }
}

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Checks the three files against each other; returns the store or throws an Error whose message is the reason. */
function validate(indexBytes: Buffer, metadataBytes: Buffer, cacheBytes: Buffer, bm25Bytes: Buffer | null): IndexStore {
  const metadata = MetadataFileSchema.safeParse(parseJson(metadataBytes, METADATA_FILE));
  if (!metadata.success) throw new Error(`${METADATA_FILE} does not have the expected shape (${metadata.error.issues[0]?.path.join('.')}: ${metadata.error.issues[0]?.message})`);
  const cache = DocCacheFileSchema.safeParse(parseJson(cacheBytes, DOC_CACHE_FILE));
  if (!cache.success) throw new Error(`${DOC_CACHE_FILE} does not have the expected shape (${cache.error.issues[0]?.path.join('.')}: ${cache.error.issues[0]?.message})`);
  const meta = metadata.data;
  const files = cache.data;
  if (sha256(indexBytes) !== meta.index_sha256) throw new Error(`${INDEX_FILE} is not the file ${METADATA_FILE} describes (checksum differs)`);
  const header = readFlatIndexHeader(indexBytes);
  if (header.dimension !== meta.dimension) throw new Error(`${INDEX_FILE} holds ${header.dimension}-dimensional vectors, ${METADATA_FILE} says ${meta.dimension}`);
  const vectorsStored = meta.vectors !== 'on_demand';
  if (meta.chunks.length !== meta.count) throw new Error(`${METADATA_FILE} counts ${meta.count} chunks but lists ${meta.chunks.length}`);
  if (header.count !== (vectorsStored ? meta.count : 0)) {
    throw new Error(`${INDEX_FILE} holds ${header.count} vectors but ${METADATA_FILE} describes ${vectorsStored ? meta.count : 'none (on demand)'}`);
  }
  if (files.generation !== meta.generation) throw new Error(`${DOC_CACHE_FILE} is from generation ${files.generation}, ${METADATA_FILE} from ${meta.generation}`);
  if (files.model !== meta.model || files.chunker !== meta.chunker) throw new Error(`${DOC_CACHE_FILE} and ${METADATA_FILE} name different models or chunkers`);
  const ids = new Set<string>();
  for (const chunk of meta.chunks) {
    if (ids.has(chunk.chunk_id)) throw new Error(`${METADATA_FILE} lists chunk ${chunk.chunk_id} twice`);
    ids.add(chunk.chunk_id);
  }
  let listed = 0;
  for (const [file, entry] of Object.entries(files.files)) {
    for (const id of entry.chunk_ids) if (!ids.has(id)) throw new Error(`${DOC_CACHE_FILE} lists chunk ${id} of ${file}, missing from ${METADATA_FILE}`);
    listed += entry.chunk_ids.length;
  }
  if (listed !== meta.count) throw new Error(`${DOC_CACHE_FILE} accounts for ${listed} chunks, ${METADATA_FILE} for ${meta.count}`);
  return {
    generation: meta.generation,
    model: meta.model,
    dimension: meta.dimension,
    chunker: meta.chunker,
    chunks: meta.chunks,
    indexBytes,
    vectorsStored,
    files: files.files,
    bm25Bytes,
  };
}

/** The saved BM25 postings of the store's generation; null when bm25.bin is missing, stale or damaged (rebuilt from the chunks). */
export function savedBm25(store: IndexStore): Bm25Data | null {
  return store.bm25Bytes ? decodeBm25File(store.bm25Bytes, store.generation, store.chunks.length) : null;
}

/**
 * Reads the index in `indexDir`. `missing` when none of the three files exists; `invalid` (with a reason) when some
 * are missing, unreadable, malformed, or disagree (checksum, count, dimension, generation, model, chunk ids).
 * Throws only for unexpected I/O errors (permissions).
 */
export async function readIndexStore(indexDir: string): Promise<ReadIndexResult> {
  // Not ann.bin: only searchers of a large index read it (loadSearchIndex); the indexer rebuilds it.
  const [indexBytes, metadataBytes, cacheBytes, bm25Bytes] = await Promise.all(
    [INDEX_FILE, METADATA_FILE, DOC_CACHE_FILE, BM25_FILE].map((name) => readOptional(join(indexDir, name))),
  );
  if (!indexBytes && !metadataBytes && !cacheBytes) return { status: 'missing' };
  const absent = [
    [INDEX_FILE, indexBytes],
    [METADATA_FILE, metadataBytes],
    [DOC_CACHE_FILE, cacheBytes],
  ].filter(([, bytes]) => !bytes);
  if (absent.length > 0) return { status: 'invalid', reason: `${absent.map(([name]) => name).join(' and ')} missing` };
  try {
    return { status: 'ok', store: validate(indexBytes!, metadataBytes!, cacheBytes!, bm25Bytes ?? null) };
  } catch (err) {
    return { status: 'invalid', reason: errorMessage(err) };
  }
}

/**
 * What {@link writeIndexStore} writes; `vectors` is row-major, chunks.length × dimension floats, unit length, or
 * null when they are computed on demand (index.bin then holds none).
 */
export interface IndexStoreData {
  generation: number;
  model: string;
  dimension: number;
  chunker: string;
  chunks: ChunkRecord[];
  vectors: Float32Array | null;
  files: Record<string, DocEntry>;
  /** BM25 postings of `chunks`, saved as bm25.bin. */
  bm25: Bm25Data;
}

/** metadata.json with one chunk per line: readable, diffable, and no giant single line. */
function metadataText(data: IndexStoreData, indexSha: string): string {
  const head = {
    format: 'cortex-r-faiss-metadata',
    version: INDEX_LAYOUT_VERSION,
    generation: data.generation,
    model: data.model,
    dimension: data.dimension,
    metric: 'inner_product',
    chunker: data.chunker,
    count: data.chunks.length,
    index_sha256: indexSha,
    ...(data.vectors ? {} : { vectors: 'on_demand' }),
    updated_at: new Date().toISOString(),
  };
  const lines = data.chunks.map((chunk) => JSON.stringify(chunk));
  return `${JSON.stringify(head).slice(0, -1)},"chunks":[${lines.length ? `\n${lines.join(',\n')}\n` : ''}]}\n`;
}

/** doc_index_cache.json for `data`. */
function cacheText(data: Pick<IndexStoreData, 'generation' | 'model' | 'chunker' | 'files'>): string {
  return `${JSON.stringify({ format: 'cortex-r-doc-index-cache', version: INDEX_LAYOUT_VERSION, generation: data.generation, model: data.model, chunker: data.chunker, files: data.files }, null, 1)}\n`;
}

/**
 * Writes the index: index.bin, bm25.bin, ann.bin (large indexes of embedding models) and doc_index_cache.json, then metadata.json, each atomically. metadata.json, written
 * last, names the generation and index.bin's SHA-256, so a crash between the writes leaves files that disagree and the
 * next indexer rebuilds rather than trusting them. The caller holds the index lock.
 */
export async function writeIndexStore(indexDir: string, data: IndexStoreData): Promise<void> {
  const { vectors } = data;
  if (vectors && vectors.length !== data.chunks.length * data.dimension) {
    throw new RangeError(`${data.chunks.length} chunks need ${data.chunks.length * data.dimension} floats, got ${vectors.length}`);
  }
  assertEncoderMatchesFaiss();
  await mkdir(indexDir, { recursive: true });
  const indexBytes = encodeFlatIndex(data.dimension, vectors ?? new Float32Array(0));
  // At the same time, each flushed; only metadata.json, which names the others' generation and checksum, must come last.
  await Promise.all([
    writeFileAtomic(join(indexDir, INDEX_FILE), indexBytes),
    writeFileAtomic(join(indexDir, BM25_FILE), encodeBm25File(data.generation, data.bm25)),
    // Other indexes search exactly; an ann.bin left from an earlier one names an older generation and is ignored.
    vectors && wantsAnnIndex(data.chunks.length, data.model) ? writeFileAtomic(join(indexDir, ANN_FILE), encodeAnnFile(data.generation, data.dimension, vectors)) : null,
    writeFileAtomic(join(indexDir, DOC_CACHE_FILE), cacheText(data)),
  ]);
  await writeFileAtomic(join(indexDir, METADATA_FILE), metadataText(data, sha256(indexBytes)));
}

/**
 * Rewrites doc_index_cache.json alone under the same generation: for refreshed sizes and mtimes of files whose
 * content did not change. The caller holds the index lock.
 */
export async function writeDocCache(indexDir: string, data: Pick<IndexStoreData, 'generation' | 'model' | 'chunker' | 'files'>): Promise<void> {
  await writeFileAtomic(join(indexDir, DOC_CACHE_FILE), cacheText(data));
}

// The indexer: documents folder → changed files → extract → chunk → embed → faiss_index/, incrementally and under a lock.
import { resolve } from 'node:path';
import { errorMessage } from '../../errors.js';
import type { LlmClient } from '../../llm/types.js';
import { chunkDocument, chunkerId, type ChunkingMode } from '../chunk/chunk-document.js';
import type { Embedder } from '../embed/embedder.js';
import { embedRows, embedTexts } from '../embed/embed-texts.js';
import { DocumentsFolderError } from '../errors.js';
import { canHoldImages } from '../extract/formats.js';
import { DEFAULT_EXTRACTION_LIMITS, type ExtractionLimits, type ExtractionResult, type Extractor } from '../types.js';
import { buildBm25Data } from '../search/bm25.js';
import { storesVectors } from '../search/retrievers.js';
import { terms } from '../text/tokenize.js';
import { decodeFlatIndex } from './flat-index-file.js';
import type { ChunkRecord, DocEntry } from './index-files.js';
import { hashFile } from './hash-file.js';
import { acquireIndexLock } from './index-lock.js';
import { removeStaleTempFiles } from './remove-stale-temp-files.js';
import { readIndexStore, savedBm25, writeDocCache, writeIndexStore } from './index-store.js';
import { planChanges, type PlannedFile } from './plan-changes.js';
import { scanDocuments } from './scan-documents.js';

/** Progress of one run, for a progress bar: `file` events count `done` of `total` files being (re)indexed. */
export type IndexProgress =
  | { phase: 'scanned'; files: number }
  | { phase: 'planned'; toIndex: number; toRemove: number; unchanged: number }
  | { phase: 'file'; file: string; done: number; total: number; outcome: 'added' | 'updated' | 'failed'; chunks: number; reason?: string }
  | { phase: 'saving'; chunks: number }
  | { phase: 'message'; message: string };

export interface IndexDocumentsOptions {
  documentsDir: string;
  indexDir: string;
  embedder: Embedder;
  extractor: Extractor;
  /** Re-extract and re-embed everything. Default false. */
  rebuild?: boolean;
  /** Default 'structural'; 'semantic' needs `llm`. */
  chunking?: ChunkingMode;
  llm?: LlmClient;
  onProgress?: (event: IndexProgress) => void;
  /** How long to wait for another indexer's lock. Default 0: fail at once with IndexLockedError. */
  lockWaitMs?: number;
  extractionLimits?: Partial<ExtractionLimits>;
  /** Chunk size and overlap, in characters. Defaults 1,000 and 150. */
  maxChars?: number;
  overlapChars?: number;
  /**
   * The fused search's vector weight (profile `rag.vector_weight`); default the embedder's own. With an in-process
   * embedder and weight 0 no vectors are computed or stored: searches that want them compute them.
   */
  vectorWeight?: number;
}

/** What a run did. Counts are files; `chunks` is the total in the index afterwards. */
export interface IndexSummary {
  added: number;
  updated: number;
  removed: number;
  /** Files indexed before and unchanged since (ones that failed before and have not changed are in `failed`). */
  skipped: number;
  /** Files that could not be indexed: this run's failures, and earlier ones whose file has not changed (`earlier`). */
  failed: Array<{ file: string; reason: string; earlier?: boolean }>;
  chunks: number;
  ms: number;
  /** True when the index was rebuilt from scratch (asked for, model or chunker switch, unusable index). */
  rebuilt: boolean;
  /** Why it was rebuilt, and other warnings, one sentence each (also sent as 'message' progress events). */
  messages: string[];
  /** Generation of the index on disk after the run (0 when none was written). */
  generation: number;
  /** True when the searchable content changed (new generation written). */
  changed: boolean;
}

/**
 * Most extractions in flight ahead of the file being chunked and embedded: three of the extractor's batches of 32
 * small text files, so that while this thread works through one batch's results the worker already has a full
 * batch waiting (with 32, it got the first few files asked for again, alone: 1,000 small files took 1.11× as long).
 */
export const EXTRACTION_LOOKAHEAD_FILES = 96;
/**
 * Past the first EXTRACTION_LOOKAHEAD_MIN_FILES, more start only while the files in flight add up to at most this
 * many bytes. Each holds its text and chunks once parsed (a few times its size), and a file may be as large as
 * maxFileBytes (50 MB): 96 of those would be gigabytes, so big files keep the old lookahead of 4 and its bound.
 */
export const EXTRACTION_LOOKAHEAD_BYTES = 4 * 2 ** 20;
/** Extractions in flight ahead whatever their size (the old lookahead, which bounded memory alone before). */
export const EXTRACTION_LOOKAHEAD_MIN_FILES = 4;

/** Extraction failures worth retrying next run without the file changing (the network may be back). */
const TRANSIENT_EXTRACTION_REASONS = new Set(['fetch_error']);

/**
 * Brings the index in `indexDir` up to date with `documentsDir`: unchanged files (same size and mtime, or same
 * SHA-256) are skipped, new and changed files are extracted, chunked and embedded, deleted files' chunks are
 * dropped. A different embedder id or dimension, a different chunker, or an index whose files disagree is
 * rebuilt from scratch with a message. A file that cannot be extracted is reported in `failed` and skipped until
 * it changes; an embedding failure is reported and retried next run. Vectors of kept chunks are reused from
 * index.bin (never re-embedded): removing a file rewrites the flat index from the kept rows.
 * @throws IndexLockedError when another indexer holds the lock; DocumentsFolderError when documentsDir cannot be read.
 */
export async function indexDocuments({
  documentsDir,
  indexDir,
  embedder,
  extractor,
  rebuild = false,
  chunking = 'structural',
  llm,
  onProgress,
  lockWaitMs = 0,
  extractionLimits,
  maxChars,
  overlapChars,
  vectorWeight,
}: IndexDocumentsOptions): Promise<IndexSummary> {
  const started = performance.now();
  const messages: string[] = [];
  const say = (message: string) => {
    messages.push(message);
    onProgress?.({ phase: 'message', message });
  };
  const limits: ExtractionLimits = { ...DEFAULT_EXTRACTION_LIMITS, ...extractionLimits };
  const chunker = chunkerId({ chunking, maxChars, overlapChars });
  const storeVectors = storesVectors(embedder, vectorWeight);
  const lock = await acquireIndexLock(indexDir, { waitMs: lockWaitMs });
  try {
    const leftovers = await removeStaleTempFiles(indexDir);
    if (leftovers.length) say(`removed ${leftovers.length} temp file${leftovers.length === 1 ? '' : 's'} left in ${indexDir} by an interrupted save`);
    const existing = await readIndexStore(indexDir);
    let store = existing.status === 'ok' ? existing.store : null;
    if (existing.status === 'invalid') say(`the index in ${indexDir} is unusable (${existing.reason}); rebuilding it`);
    if (store && (store.model !== embedder.id || store.dimension !== embedder.dimension)) {
      say(`embedding model changed from ${store.model} (${store.dimension} dimensions) to ${embedder.id} (${embedder.dimension}); rebuilding the index`);
      store = null;
    } else if (store && store.chunker !== chunker) {
      say(`chunking changed from ${store.chunker} to ${chunker}; rebuilding the index`);
      store = null;
    } else if (store && rebuild) {
      store = null;
    }
    const rebuilt = existing.status !== 'missing' && store === null;
    // Every file will be read (a first index or a rebuild): the extractor's worker starts while the folder is scanned.
    if (store === null) extractor.prepare?.();

    const scan = await scanDocuments(documentsDir, { exclude: [resolve(indexDir)] }).catch((err: NodeJS.ErrnoException) => {
      const reason = err.code === 'ENOENT' ? 'it does not exist (create it and put documents in it)' : err.code === 'ENOTDIR' ? 'it is not a folder' : errorMessage(err);
      throw new DocumentsFolderError(documentsDir, reason, { cause: err });
    });
    for (const warning of scan.warnings) say(warning);
    onProgress?.({ phase: 'scanned', files: scan.files.length });
    const previous = store?.files ?? {};
    const imageReader = extractor.imageReader;
    const plan = await planChanges(scan.files, previous, limits.maxFileBytes, imageReader);
    if (plan.rereadForImages > 0) {
      const files = `${plan.rereadForImages} file${plan.rereadForImages === 1 ? '' : 's'} that can hold images`;
      say(`images are now read by ${imageReader}; reading ${files} again`);
    }
    onProgress?.({ phase: 'planned', toIndex: plan.toIndex.length, toRemove: plan.removed.length, unchanged: Object.keys(plan.unchanged).length });

    // A file that failed before and has not changed is still not indexed: it is reported on every run.
    const failedBefore = Object.entries(plan.unchanged).filter(([, entry]) => entry.failed !== undefined);
    const failed: IndexSummary['failed'] = [...scan.refused, ...failedBefore.map(([file, entry]) => ({ file, reason: entry.failed!, earlier: true }))];
    const files: Record<string, DocEntry> = { ...plan.unchanged };
    const dropped = new Set<string>(plan.removed);
    const newChunks: ChunkRecord[] = [];
    const newVectors: Float32Array[] = [];
    const newTerms: string[][] = [];
    let added = 0;
    let updated = 0;
    for (const { file, reason } of plan.unreadable) {
      failed.push({ file: file.rel, reason });
      if (reason.startsWith('too_large')) {
        // Cached with no hash: skipped until its size or mtime changes. Its old chunks (if any) go.
        files[file.rel] = { hash: '', size: file.size, mtime_ms: file.mtimeMs, indexed_at_ms: Date.now(), model: embedder.id, chunk_ids: [], failed: reason };
        dropped.add(file.rel);
      } else if (previous[file.rel]) {
        files[file.rel] = previous[file.rel]!;
      }
    }

    let done = 0;
    // Files of lookahead: the extractor's worker parses the next files while this thread chunks and embeds.
    // Structural chunking runs in the extractor's worker, inside the per-file deadline and heap cap.
    const fileLimits: ExtractionLimits = chunking === 'structural' ? { ...limits, structuralChunks: { maxChars, overlapChars } } : limits;
    const extractions = extractAhead(plan.toIndex, (file) => extractor.extract(file.abs, fileLimits));
    for (const file of plan.toIndex) {
      const extraction = await extractions.next();
      // The hash of the bytes actually extracted when the extractor read them; a new file is hashed here otherwise.
      const hash = extraction.sha256 ?? (file.hash || (await hashOrEmpty(file.abs, limits.maxFileBytes)));
      const entryBase = {
        hash,
        size: file.size,
        mtime_ms: file.mtimeMs,
        indexed_at_ms: Date.now(),
        model: embedder.id,
        ...(imageReader && canHoldImages(file.rel) ? { image_reader: imageReader } : {}),
      };
      const report = (outcome: 'added' | 'updated' | 'failed', chunks: number, reason?: string) =>
        onProgress?.({ phase: 'file', file: file.rel, done: ++done, total: plan.toIndex.length, outcome, chunks, ...(reason ? { reason } : {}) });
      if (!extraction.ok) {
        const reason = `${extraction.reason}: ${extraction.message}`;
        failed.push({ file: file.rel, reason });
        if (TRANSIENT_EXTRACTION_REASONS.has(extraction.reason)) {
          if (previous[file.rel]) files[file.rel] = previous[file.rel]!;
        } else {
          files[file.rel] = { ...entryBase, chunk_ids: [], failed: reason };
          dropped.add(file.rel);
        }
        report('failed', 0, reason);
        continue;
      }
      for (const warning of extraction.warnings) say(`${file.rel}: ${warning}`);
      const { chunks, warnings } = extraction.chunks
        ? { chunks: extraction.chunks, warnings: [] }
        : await chunkDocument({ pages: extraction.pages, chunking, llm, maxChars, overlapChars });
      for (const warning of warnings) say(`${file.rel}: ${warning}`);
      if (chunks.length === 0) {
        const reason = 'no_text: no text to index';
        failed.push({ file: file.rel, reason });
        files[file.rel] = { ...entryBase, format: extraction.format, chunk_ids: [], failed: reason };
        dropped.add(file.rel);
        report('failed', 0, reason);
        continue;
      }
      let vectors: Float32Array[] = [];
      try {
        if (storeVectors) vectors = await embedTexts(embedder, chunks.map((c) => c.text));
      } catch (err) {
        // Not cached: the model may be back next run. The file's previous chunks, if any, stay until then.
        const reason = `embedding failed: ${errorMessage(err)}`;
        failed.push({ file: file.rel, reason });
        if (previous[file.rel]) files[file.rel] = previous[file.rel]!;
        report('failed', 0, reason);
        continue;
      }
      // Pages are 1-based; a stray 0 or fraction from an extractor must not make the metadata unreadable (and rebuilt forever).
      const records = chunks.map((chunk, i) => ({ doc: file.rel, chunk_id: `${file.rel}#${i}`, page: Math.max(1, Math.floor(chunk.page) || 1), format: extraction.format, chunk: chunk.text }));
      newChunks.push(...records);
      newVectors.push(...vectors);
      // Right after embedding, while the tokeniser still remembers these texts' words (if they were embedded).
      for (const record of records) newTerms.push(terms(record.chunk));
      files[file.rel] = { ...entryBase, format: extraction.format, title: extraction.title, chunk_ids: records.map((r) => r.chunk_id) };
      dropped.add(file.rel);
      if (file.previouslyIndexed) updated++;
      else added++;
      report(file.previouslyIndexed ? 'updated' : 'added', records.length);
    }

    // Kept rows are the old ones whose document is neither gone nor replaced, in their old order.
    const oldChunks = store?.chunks ?? [];
    const keep = oldChunks.map((chunk) => !dropped.has(chunk.doc));
    const keptCount = keep.filter(Boolean).length;
    // New generation when anything but refreshed mtimes changed: chunks, the set of files and their failures, or whether vectors are stored.
    const contentChanged =
      store === null || dropped.size > 0 || Object.keys(files).length !== Object.keys(previous).length || store.vectorsStored !== storeVectors;
    // A rebuild continues the old numbering: generations only grow while the files stay readable.
    let generation = existing.status === 'ok' ? existing.store.generation : 0;
    const totalChunks = keptCount + newChunks.length;
    if (contentChanged) {
      onProgress?.({ phase: 'saving', chunks: totalChunks });
      const dimension = embedder.dimension;
      const kept = oldChunks.filter((_, row) => keep[row]);
      const vectors = storeVectors ? new Float32Array(totalChunks * dimension) : null;
      if (vectors && store?.vectorsStored && kept.length > 0) {
        const old = decodeFlatIndex(store.indexBytes).vectors;
        let out = 0;
        keep.forEach((isKept, row) => isKept && vectors.set(old.subarray(row * dimension, (row + 1) * dimension), out++ * dimension));
      } else if (vectors && kept.length > 0) {
        say(`the fused search now uses vectors; computing them for the ${kept.length} chunks already indexed`);
        await embedRows(embedder, kept.map((c) => c.chunk), vectors);
      }
      newVectors.forEach((vector, i) => vectors?.set(vector, (kept.length + i) * dimension));
      const chunksOut = [...kept, ...newChunks];
      generation += 1;
      // Kept chunks' postings carry over from bm25.bin (tokenised again only when it was missing or stale).
      const base = store && keptCount > 0 ? { data: savedBm25(store) ?? buildBm25Data(oldChunks.map((c) => terms(c.chunk))), keep: (row: number) => keep[row]! } : undefined;
      const bm25 = buildBm25Data(newTerms, base);
      await writeIndexStore(indexDir, { generation, model: embedder.id, dimension, chunker, chunks: chunksOut, vectors, files, bm25 });
    } else if (plan.entriesRefreshed && store) {
      await writeDocCache(indexDir, { generation, model: store.model, chunker: store.chunker, files });
    }
    return {
      added,
      updated,
      removed: plan.removed.length,
      skipped: Object.keys(plan.unchanged).length - failedBefore.length,
      failed,
      chunks: totalChunks,
      ms: Math.round(performance.now() - started),
      rebuilt,
      messages,
      generation,
      changed: contentChanged,
    };
  } finally {
    await lock.release();
  }
}

/**
 * Extracts `files` in order, keeping extractions in flight ahead of the one taken (see EXTRACTION_LOOKAHEAD_FILES,
 * _BYTES and _MIN_FILES; sizes as scanned). next() gives each file's extraction in turn, once per file.
 */
function extractAhead(files: readonly PlannedFile[], extract: (file: PlannedFile) => Promise<ExtractionResult>): { next(): Promise<ExtractionResult> } {
  const inFlight: Array<{ size: number; extraction: Promise<ExtractionResult> }> = [];
  let started = 0;
  let bytes = 0;
  const fill = () => {
    while (started < files.length) {
      const file = files[started]!;
      const room = inFlight.length < EXTRACTION_LOOKAHEAD_MIN_FILES || (inFlight.length < EXTRACTION_LOOKAHEAD_FILES && bytes + file.size <= EXTRACTION_LOOKAHEAD_BYTES);
      if (!room) return;
      inFlight.push({ size: file.size, extraction: extract(file) });
      bytes += file.size;
      started++;
    }
  };
  fill();
  return {
    async next() {
      const head = inFlight.shift();
      if (!head) return { ok: false, reason: 'parse_error', message: 'No file left to extract.' };
      bytes -= head.size;
      const extraction = await head.extraction;
      // Refilled once this one has arrived, so the one being chunked and embedded counts on top, as it always did.
      fill();
      return extraction;
    },
  };
}

async function hashOrEmpty(path: string, maxBytes: number): Promise<string> {
  const hashed = await hashFile(path, maxBytes);
  return hashed.ok ? hashed.hash : '';
}

// The indexer: documents folder → changed files → extract → chunk → embed → faiss_index/, incrementally and under a lock.
import { resolve } from 'node:path';
import { errorMessage } from '../../errors.js';
import type { LlmClient } from '../../llm/types.js';
import { chunkerId, type ChunkingMode } from '../chunk/chunk-document.js';
import type { Embedder } from '../embed/embedder.js';
import { DocumentsFolderError } from '../errors.js';
import { DEFAULT_EXTRACTION_LIMITS, type ExtractionLimits, type Extractor } from '../types.js';
import { storesVectors } from '../search/retrievers.js';
import { indexChangedFiles } from './index-file.js';
import { acquireIndexLock } from './index-lock.js';
import type { DocEntry } from './index-files.js';
import type { IndexProgress, IndexRun, IndexSummary, RunTally } from './index-run.js';
import { readIndexStore, type IndexStore, type ReadIndexResult } from './index-store.js';
import { removeStaleTempFiles } from './remove-stale-temp-files.js';
import { planChanges, type ChangePlan } from './plan-changes.js';
import { scanDocuments, type ScanResult } from './scan-documents.js';
import { writeGeneration, type WrittenGeneration } from './write-generation.js';

export type { IndexProgress, IndexSummary };

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

/**
 * Brings the index in `indexDir` up to date with `documentsDir`: unchanged files (same size and mtime, or same
 * SHA-256) are skipped, new and changed files are extracted, chunked and embedded, deleted files' chunks are
 * dropped. A different embedder id or dimension, a different chunker, or an index whose files disagree is
 * rebuilt from scratch with a message. A file that cannot be extracted is reported in `failed` and skipped until
 * it changes; an embedding failure is reported and retried next run. Vectors of kept chunks are reused from
 * index.bin (never re-embedded): removing a file rewrites the flat index from the kept rows.
 * @throws IndexLockedError when another indexer holds the lock; DocumentsFolderError when documentsDir cannot be read.
 */
export async function indexDocuments(options: IndexDocumentsOptions): Promise<IndexSummary> {
  const started = performance.now();
  const messages: string[] = [];
  const run = startRun(options, messages);
  const lock = await acquireIndexLock(run.indexDir, { waitMs: options.lockWaitMs ?? 0 });
  try {
    const { existing, store } = await openStore(run, options.rebuild ?? false);
    // Every file will be read (a first index or a rebuild): the extractor's worker starts while the folder is scanned.
    if (store === null) run.extractor.prepare?.();
    const scan = await findFiles(run);
    const previous = store?.files ?? {};
    const { plan, tally, failedBefore } = await decideChanges(run, scan, previous);
    await indexChangedFiles(run, plan.toIndex, previous, tally);
    const written = await writeGeneration(run, store, existing.status === 'ok' ? existing.store.generation : 0, plan.entriesRefreshed, tally);
    return summarize({ started, plan, tally, failedBefore, rebuilt: existing.status !== 'missing' && store === null, messages, written });
  } finally {
    await lock.release();
  }
}

interface RunReport {
  /** performance.now() when the run started. */
  started: number;
  plan: ChangePlan;
  tally: RunTally;
  /** Unchanged files that failed in an earlier run (in `tally.failed`, not counted as skipped). */
  failedBefore: number;
  rebuilt: boolean;
  messages: string[];
  written: WrittenGeneration;
}

/** What the run did, for the caller. */
function summarize({ started, plan, tally, failedBefore, rebuilt, messages, written }: RunReport): IndexSummary {
  return {
    added: tally.added,
    updated: tally.updated,
    removed: plan.removed.length,
    skipped: Object.keys(plan.unchanged).length - failedBefore,
    failed: tally.failed,
    chunks: written.chunks,
    ms: Math.round(performance.now() - started),
    rebuilt,
    messages,
    generation: written.generation,
    changed: written.changed,
  };
}

/** The run's settings with their defaults; `say` keeps each message in `messages` too. */
function startRun(options: IndexDocumentsOptions, messages: string[]): IndexRun {
  const { chunking = 'structural', maxChars, overlapChars, onProgress } = options;
  return {
    documentsDir: options.documentsDir,
    indexDir: options.indexDir,
    embedder: options.embedder,
    extractor: options.extractor,
    chunking,
    llm: options.llm,
    maxChars,
    overlapChars,
    limits: { ...DEFAULT_EXTRACTION_LIMITS, ...options.extractionLimits },
    chunker: chunkerId({ chunking, maxChars, overlapChars }),
    storeVectors: storesVectors(options.embedder, options.vectorWeight),
    say: (message) => {
      messages.push(message);
      onProgress?.({ phase: 'message', message });
    },
    progress: (event) => onProgress?.(event),
  };
}

/**
 * Reads the index on disk (after removing an interrupted save's temp files) and decides whether the run builds on it:
 * not when it is unusable, made by another embedder or chunker, or a rebuild was asked for.
 */
async function openStore(run: IndexRun, rebuild: boolean): Promise<{ existing: ReadIndexResult; store: IndexStore | null }> {
  const leftovers = await removeStaleTempFiles(run.indexDir);
  if (leftovers.length) run.say(`removed ${leftovers.length} temp file${leftovers.length === 1 ? '' : 's'} left in ${run.indexDir} by an interrupted save`);
  const existing = await readIndexStore(run.indexDir);
  const store = existing.status === 'ok' ? existing.store : null;
  if (existing.status === 'invalid') run.say(`the index in ${run.indexDir} is unusable (${existing.reason}); rebuilding it`);
  const { embedder, chunker } = run;
  if (store && (store.model !== embedder.id || store.dimension !== embedder.dimension)) {
    run.say(`embedding model changed from ${store.model} (${store.dimension} dimensions) to ${embedder.id} (${embedder.dimension}); rebuilding the index`);
    return { existing, store: null };
  }
  if (store && store.chunker !== chunker) {
    run.say(`chunking changed from ${store.chunker} to ${chunker}; rebuilding the index`);
    return { existing, store: null };
  }
  return { existing, store: rebuild ? null : store };
}

/** The documents folder's files (the index folder left out), with its warnings said. @throws DocumentsFolderError. */
async function findFiles(run: IndexRun): Promise<ScanResult> {
  const scan = await scanDocuments(run.documentsDir, { exclude: [resolve(run.indexDir)] }).catch((err: NodeJS.ErrnoException) => {
    const reason = err.code === 'ENOENT' ? 'it does not exist (create it and put documents in it)' : err.code === 'ENOTDIR' ? 'it is not a folder' : errorMessage(err);
    throw new DocumentsFolderError(run.documentsDir, reason, { cause: err });
  });
  for (const warning of scan.warnings) run.say(warning);
  run.progress({ phase: 'scanned', files: scan.files.length });
  return scan;
}

/**
 * Compares the scan with the previous entries: the plan of files to index and remove, and the tally the run starts
 * from (unchanged entries; refused files, earlier failures and files too large or unreadable to hash as failed).
 */
async function decideChanges(run: IndexRun, scan: ScanResult, previous: Record<string, DocEntry>): Promise<{ plan: ChangePlan; tally: RunTally; failedBefore: number }> {
  const imageReader = run.extractor.imageReader;
  const plan = await planChanges(scan.files, previous, run.limits.maxFileBytes, imageReader);
  if (plan.rereadForImages > 0) {
    const files = `${plan.rereadForImages} file${plan.rereadForImages === 1 ? '' : 's'} that can hold images`;
    run.say(`images are now read by ${imageReader}; reading ${files} again`);
  }
  run.progress({ phase: 'planned', toIndex: plan.toIndex.length, toRemove: plan.removed.length, unchanged: Object.keys(plan.unchanged).length });
  // A file that failed before and has not changed is still not indexed: it is reported on every run.
  const failedBefore = Object.entries(plan.unchanged).filter(([, entry]) => entry.failed !== undefined);
  const failed: IndexSummary['failed'] = [...scan.refused, ...failedBefore.map(([file, entry]) => ({ file, reason: entry.failed!, earlier: true }))];
  const tally: RunTally = { files: { ...plan.unchanged }, dropped: new Set(plan.removed), failed, chunks: [], vectors: [], terms: [], added: 0, updated: 0 };
  for (const { file, reason } of plan.unreadable) {
    failed.push({ file: file.rel, reason });
    if (reason.startsWith('too_large')) {
      // Cached with no hash: skipped until its size or mtime changes. Its old chunks (if any) go.
      tally.files[file.rel] = { hash: '', size: file.size, mtime_ms: file.mtimeMs, indexed_at_ms: Date.now(), model: run.embedder.id, chunk_ids: [], failed: reason };
      tally.dropped.add(file.rel);
    } else if (previous[file.rel]) {
      tally.files[file.rel] = previous[file.rel]!;
    }
  }
  return { plan, tally, failedBefore: failedBefore.length };
}

// What the steps of one indexing run share: its settings (IndexRun) and what it has found so far (RunTally).
import type { LlmClient } from '../../llm/types.js';
import type { ChunkingMode } from '../chunk/chunk-document.js';
import type { Embedder } from '../embed/embedder.js';
import type { ExtractionLimits, Extractor } from '../types.js';
import type { ChunkRecord, DocEntry } from './index-files.js';

/** Progress of one run, for a progress bar: `file` events count `done` of `total` files being (re)indexed. */
export type IndexProgress =
  | { phase: 'scanned'; files: number }
  | { phase: 'planned'; toIndex: number; toRemove: number; unchanged: number }
  | { phase: 'file'; file: string; done: number; total: number; outcome: 'added' | 'updated' | 'failed'; chunks: number; reason?: string }
  | { phase: 'saving'; chunks: number }
  | { phase: 'message'; message: string };

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

/** One run's settings, with their defaults applied, and its two ways of telling the caller. */
export interface IndexRun {
  documentsDir: string;
  indexDir: string;
  embedder: Embedder;
  extractor: Extractor;
  chunking: ChunkingMode;
  llm: LlmClient | undefined;
  maxChars: number | undefined;
  overlapChars: number | undefined;
  limits: ExtractionLimits;
  /** The chunker's id recorded in the index (chunkerId). */
  chunker: string;
  /** False when the fused search computes vectors on demand (storesVectors). */
  storeVectors: boolean;
  /** A warning or rebuild reason: kept for the summary and sent as a 'message' progress event. */
  say(message: string): void;
  progress(event: IndexProgress): void;
}

/** What the run has decided so far, filled in step by step. */
export interface RunTally {
  /** The entry of every file the index will list afterwards. */
  files: Record<string, DocEntry>;
  /** Documents whose old rows go (gone, replaced, or now failing). */
  dropped: Set<string>;
  failed: IndexSummary['failed'];
  /** The new rows, in order: chunk records, their vectors (when stored) and their BM25 terms. */
  chunks: ChunkRecord[];
  vectors: Float32Array[];
  terms: string[][];
  added: number;
  updated: number;
}

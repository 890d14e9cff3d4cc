// What the steps of one indexing run share: its settings (IndexRun) and what it has found so far (RunTally).
import type { LlmClient } from '../../llm/types.js';
import type { ChunkingMode } from '../chunk/chunk-document.js';
import type { Embedder } from '../embed/embedder.js';
import type { ExtractionLimits, Extractor } from '../types.js';
import type { IndexProgress, IndexSummary } from './index-documents.js';
import type { ChunkRecord, DocEntry } from './index-files.js';

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

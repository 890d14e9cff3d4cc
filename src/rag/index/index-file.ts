// The indexer's per-file steps: extract each changed file (ahead of time), chunk it, embed the chunks, record the rows.
import { errorMessage } from '../../errors.js';
import { chunkDocument } from '../chunk/chunk-document.js';
import { embedTexts } from '../embed/embed-texts.js';
import { canHoldImages } from '../extract/formats.js';
import type { ExtractionLimits, ExtractionResult } from '../types.js';
import { terms } from '../text/tokenize.js';
import { extractAhead } from './extract-ahead.js';
import { hashFile } from './hash-file.js';
import type { DocEntry } from './index-files.js';
import type { IndexRun, RunTally } from './index-run.js';
import type { PlannedFile } from './plan-changes.js';

/** Extraction failures worth retrying next run without the file changing (the network may be back). */
const TRANSIENT_EXTRACTION_REASONS = new Set(['fetch_error']);

/** How one file went, for its 'file' progress event. */
type FileOutcome = { outcome: 'added' | 'updated' | 'failed'; chunks: number; reason?: string };

/**
 * Extracts, chunks and embeds every file of `toIndex` into `tally`, one 'file' progress event each. The extractor's
 * worker parses the next files while this thread chunks and embeds; structural chunking runs in that worker, inside
 * the per-file deadline and heap cap.
 */
export async function indexChangedFiles(run: IndexRun, toIndex: readonly PlannedFile[], previous: Record<string, DocEntry>, tally: RunTally): Promise<void> {
  const { limits, maxChars, overlapChars } = run;
  const fileLimits: ExtractionLimits = run.chunking === 'structural' ? { ...limits, structuralChunks: { maxChars, overlapChars } } : limits;
  const extractions = extractAhead(toIndex, (file) => run.extractor.extract(file.abs, fileLimits));
  let done = 0;
  for (const file of toIndex) {
    const { outcome, chunks, reason } = await indexFile(run, file, await extractions.next(), previous, tally);
    run.progress({ phase: 'file', file: file.rel, done: ++done, total: toIndex.length, outcome, chunks, ...(reason ? { reason } : {}) });
  }
}

/** Records one extracted file in `tally`: its rows, or why it failed and which entry it keeps. */
async function indexFile(run: IndexRun, file: PlannedFile, extraction: ExtractionResult, previous: Record<string, DocEntry>, tally: RunTally): Promise<FileOutcome> {
  // The hash of the bytes actually extracted when the extractor read them; a new file is hashed here otherwise.
  const hash = extraction.sha256 ?? (file.hash || (await hashOrEmpty(file.abs, run.limits.maxFileBytes)));
  const imageReader = run.extractor.imageReader;
  const entryBase = {
    hash,
    size: file.size,
    mtime_ms: file.mtimeMs,
    indexed_at_ms: Date.now(),
    model: run.embedder.id,
    ...(imageReader && canHoldImages(file.rel) ? { image_reader: imageReader } : {}),
  };
  const failed = (reason: string): FileOutcome => {
    tally.failed.push({ file: file.rel, reason });
    return { outcome: 'failed', chunks: 0, reason };
  };
  // The file's previous entry and rows stay (a failure worth retrying next run without the file changing).
  const failKeeping = (reason: string): FileOutcome => {
    if (previous[file.rel]) tally.files[file.rel] = previous[file.rel]!;
    return failed(reason);
  };
  // A failed entry replaces the file's rows: skipped until it changes.
  const failReplacing = (reason: string, entry: DocEntry): FileOutcome => {
    tally.files[file.rel] = entry;
    tally.dropped.add(file.rel);
    return failed(reason);
  };
  if (!extraction.ok) {
    const reason = `${extraction.reason}: ${extraction.message}`;
    return TRANSIENT_EXTRACTION_REASONS.has(extraction.reason) ? failKeeping(reason) : failReplacing(reason, { ...entryBase, chunk_ids: [], failed: reason });
  }
  for (const warning of extraction.warnings) run.say(`${file.rel}: ${warning}`);
  const { chunks, warnings } = extraction.chunks
    ? { chunks: extraction.chunks, warnings: [] }
    : await chunkDocument({ pages: extraction.pages, chunking: run.chunking, llm: run.llm, maxChars: run.maxChars, overlapChars: run.overlapChars });
  for (const warning of warnings) run.say(`${file.rel}: ${warning}`);
  if (chunks.length === 0) {
    const reason = 'no_text: no text to index';
    return failReplacing(reason, { ...entryBase, format: extraction.format, chunk_ids: [], failed: reason });
  }
  let vectors: Float32Array[] = [];
  try {
    if (run.storeVectors) vectors = await embedTexts(run.embedder, chunks.map((c) => c.text));
  } catch (err) {
    // Not cached: the model may be back next run. The file's previous chunks, if any, stay until then.
    return failKeeping(`embedding failed: ${errorMessage(err)}`);
  }
  // Pages are 1-based; a stray 0 or fraction from an extractor must not make the metadata unreadable (and rebuilt forever).
  const records = chunks.map((chunk, i) => ({ doc: file.rel, chunk_id: `${file.rel}#${i}`, page: Math.max(1, Math.floor(chunk.page) || 1), format: extraction.format, chunk: chunk.text }));
  tally.chunks.push(...records);
  tally.vectors.push(...vectors);
  // Right after embedding, while the tokeniser still remembers these texts' words (if they were embedded).
  for (const record of records) tally.terms.push(terms(record.chunk));
  tally.files[file.rel] = { ...entryBase, format: extraction.format, title: extraction.title, chunk_ids: records.map((r) => r.chunk_id) };
  tally.dropped.add(file.rel);
  if (file.previouslyIndexed) tally.updated++;
  else tally.added++;
  return { outcome: file.previouslyIndexed ? 'updated' : 'added', chunks: records.length };
}

async function hashOrEmpty(path: string, maxBytes: number): Promise<string> {
  const hashed = await hashFile(path, maxBytes);
  return hashed.ok ? hashed.hash : '';
}

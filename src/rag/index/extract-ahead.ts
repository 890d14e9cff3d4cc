// Keeps extractions in flight ahead of the file being chunked and embedded, bounded by a file count and bytes held.
import type { ExtractionResult } from '../types.js';
import type { PlannedFile } from './plan-changes.js';

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

/**
 * Extracts `files` in order, keeping extractions in flight ahead of the one taken (see EXTRACTION_LOOKAHEAD_FILES,
 * _BYTES and _MIN_FILES; sizes as scanned). next() gives each file's extraction in turn, once per file.
 */
export function extractAhead(files: readonly PlannedFile[], extract: (file: PlannedFile) => Promise<ExtractionResult>): { next(): Promise<ExtractionResult> } {
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

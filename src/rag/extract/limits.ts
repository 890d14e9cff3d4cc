// Extraction limits: clamping the caller's per-file limits, and the fixed caps of the parse worker.
import { DEFAULT_EXTRACTION_LIMITS, type ExtractionLimits } from '../types.js';

/** Heap of one parse worker (V8 old generation). DESIGN §3.8: jsdom took an 18 MB page to a 4 GB heap. */
export const WORKER_HEAP_MB = 1_024;
/** A worker whose heap is still above this after a file is replaced, so one big file can't bloat the next. */
export const WORKER_RETIRE_HEAP_MB = 384;
/**
 * Files one worker parses with a library (PDF, HTML, DOCX, images) before it is replaced, bounding slow leaks in
 * jsdom or pdfjs. Plain text files don't count: their parse loads no such library, and a heap that grows anyway is
 * caught by WORKER_RETIRE_HEAP_MB. A new worker starts cold (its first few hundred small files take about twice as
 * long): counting plain text too made indexing 1,000 small Markdown files 1.11× slower (whole process, 11 pairs).
 */
export const WORKER_MAX_PARSER_FILES = 500;
/**
 * Most plain text files sent to the worker in one message. Each message costs a round trip (post, wake, reply,
 * next dispatch, ~0.5 ms) during which the worker idles, a lot beside a small file's parse; past a few dozen
 * files that cost is spread thin, and a batch that fails as a whole is parsed again one file at a time.
 */
export const BATCH_MAX_FILES = 32;
/** The first message's bound: the caller gets its first results (and work) a few files in, not 32, while the worker is cold. */
export const FIRST_BATCH_MAX_FILES = 8;
/** Bytes of plain text files the worker reads for one message before leaving the rest for the next: keeps a batch's parse well under a file's deadline and heap. */
export const BATCH_MAX_BYTES = 256 * 1024;
/** How long close() waits for a terminating worker thread before giving up on it. */
export const WORKER_TERMINATE_WAIT_MS = 2_000;

/**
 * Pages given to jsdom + Readability; past any of these bounds their plain text is taken from cheerio's tree
 * instead. Readability's cost explodes with nesting (5 blocks 64 deep: 2.7 s; one 500 deep: 37 s) and grows
 * with size and width (one node with 5,000 paragraphs: 3.6 s); the saved news pages measured stay under
 * 30 levels, 3,000 elements and 130 children per node.
 */
export const MAX_ARTICLE_DEPTH_LEVELS = 64;
export const MAX_ARTICLE_ELEMENTS = 10_000;
export const MAX_ARTICLE_CHILDREN = 1_000;

/** A PDF page with fewer non-space characters than this on average is reported as possibly scanned. */
export const MIN_PDF_CHARS_PER_PAGE = 16;
/** Bytes of a text file inspected when deciding whether it is binary. */
export const BINARY_SNIFF_BYTES = 64 * 1024;
/** Share of control characters above which a "text" file is taken for binary. */
export const MAX_CONTROL_CHAR_RATIO = 0.05;
/** Bytes of a `.url` file read for its URL; real ones are a few hundred bytes. */
export const MAX_URL_FILE_BYTES = 64 * 1024;
/** Largest image file an HTML page may show from beside it (bigger ones are left out). */
export const MAX_LOCAL_IMAGE_BYTES = 20 * 2 ** 20;
/** Warnings kept per file; the rest are counted in the last one. */
export const MAX_WARNINGS = 10;

/** Accepted ranges: finite and bounded, so a config typo can't switch a limit off. */
const BOUNDS: Record<'maxFileBytes' | 'timeoutMs' | 'maxTextChars', [min: number, max: number]> = {
  maxFileBytes: [1, 1024 * 2 ** 20],
  timeoutMs: [10, 600_000],
  maxTextChars: [100, 100_000_000],
};

/** Fills in defaults and clamps each limit into its range; a non-finite value falls back to the default. */
export function resolveExtractionLimits(
  partial: Partial<ExtractionLimits> = {},
  defaults: ExtractionLimits = DEFAULT_EXTRACTION_LIMITS,
): ExtractionLimits {
  const out = { ...defaults };
  for (const key of Object.keys(BOUNDS) as Array<keyof typeof BOUNDS>) {
    const value = partial[key];
    if (typeof value !== 'number' || !Number.isFinite(value)) continue;
    const [min, max] = BOUNDS[key];
    out[key] = Math.min(max, Math.max(min, Math.floor(value)));
  }
  if (partial.structuralChunks) out.structuralChunks = partial.structuralChunks;
  return out;
}

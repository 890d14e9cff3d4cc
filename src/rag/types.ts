// Contracts between the RAG stages: extraction (file → text) and indexing/search (text → chunks → FAISS).

/** One page of extracted text; PDFs have real page numbers, other formats a single page 1. */
export interface ExtractedPage {
  page: number;
  /** Markdown-ish text of the page. */
  text: string;
}

export type ExtractionResult =
  | {
      ok: true;
      /** Format detected, e.g. 'pdf', 'html', 'md', 'txt', 'docx', 'csv', 'json', 'url'. */
      format: string;
      /** Document title when the format has one (HTML title, PDF metadata), else null. */
      title: string | null;
      /** The text, page by page; empty when `chunks` is given (the text then comes once, as chunks). */
      pages: ExtractedPage[];
      /** Problems that did not stop extraction (e.g. 3 pages without a text layer). */
      warnings: string[];
      /** The pages chunked structurally in the worker, when the limits asked for it (see ExtractionLimits.structuralChunks). */
      chunks?: Array<{ text: string; page: number }>;
      /** SHA-256 (hex) of the file's bytes as read, for a file of the documents folder. */
      sha256?: string;
    }
  | {
      ok: false;
      /** Why the file was skipped: unsupported, too_large, timeout, parse_error, no_text, unsafe_path, fetch_error. */
      reason: 'unsupported' | 'too_large' | 'timeout' | 'parse_error' | 'no_text' | 'unsafe_path' | 'fetch_error';
      /** One sentence for the user's warning line. */
      message: string;
      /** SHA-256 (hex) of the file's bytes, when they were read before the failure. */
      sha256?: string;
    };

/** Limits for extracting one file. */
export interface ExtractionLimits {
  /** Files larger than this are skipped. Default 50 MB. */
  maxFileBytes: number;
  /** Wall clock per file, parse included; the worker is killed past it. Default 30 s. */
  timeoutMs: number;
  /** Extracted text is cut at this many characters. Default 5,000,000. */
  maxTextChars: number;
  /**
   * When set, the worker also chunks the text structurally with these sizes, so chunking shares the file's
   * deadline and heap cap; the result then carries `chunks`. Default unset (the caller chunks).
   */
  structuralChunks?: { maxChars?: number; overlapChars?: number };
}

export const DEFAULT_EXTRACTION_LIMITS: ExtractionLimits = {
  maxFileBytes: 50 * 2 ** 20,
  timeoutMs: 30_000,
  maxTextChars: 5_000_000,
};

/** Extracts text from files inside one documents folder. */
export interface Extractor {
  /**
   * Extracts `path` (absolute, or relative to the documents folder). Never throws for a bad file:
   * refuses paths that resolve outside the folder (symlinks included) and anything not a regular file.
   */
  extract(path: string, limits?: Partial<ExtractionLimits>): Promise<ExtractionResult>;
  /**
   * What reads the images of files (a captioner id such as `ollama:llava`, or `tesseract`); absent when images are
   * left out. The indexer reads files that can hold images again when it changes.
   */
  readonly imageReader?: string;
  /** Starts what extraction needs (a worker thread) ahead of the first file, when many files are coming. */
  prepare?(): void;
  /** Stops the worker(s). */
  close(): Promise<void>;
}

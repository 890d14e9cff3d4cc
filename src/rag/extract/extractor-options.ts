// What an Extractor is built with: its documents folder, fetcher, limits, worker settings and image reader.
import type { ExtractionLimits } from '../types.js';
import type { ImageCaptioner } from '../vision/image-captioner.js';
import { createSafeFetch, type FetchUrl } from './safe-fetch.js';

export interface CreateExtractorOptions {
  /** The documents folder; only regular files inside it (symlinks resolved) are read. */
  documentsDir: string;
  /** Fetches the target of `.url` files and extractUrl(); default createSafeFetch() (public http(s) only, 15 s, 5 MB). */
  fetchUrl?: FetchUrl;
  /** Per-file limits used when extract() is given none; default DEFAULT_EXTRACTION_LIMITS. */
  limits?: Partial<ExtractionLimits>;
  /** V8 heap of the parse worker, in MB; default WORKER_HEAP_MB. Past it the worker dies and the file is too_large. */
  workerHeapMb?: number;
  /** Files a worker parses with a library (not plain text) before it is replaced; default WORKER_MAX_PARSER_FILES. */
  workerMaxParserFiles?: number;
  /** Built worker entry; default dist/src/rag/extract/extract-worker.js. */
  workerPath?: string;
  /**
   * Reads images (figures in PDF, DOCX and HTML files, image files, scanned PDF pages) with this captioner. Without
   * it images are left out and an image file or a scanned PDF is skipped with one warning.
   */
  images?: ImageCaptionSettings;
}

/** How the extractor reads images. */
export interface ImageCaptionSettings {
  /** A vision model (createVisionCaptioner) or Tesseract (createTesseractCaptioner). */
  captioner: ImageCaptioner;
  /** Folder of the caption cache (the index folder, faiss_index/); without it nothing is cached. */
  cacheDir?: string;
  /** Captioning time per file after parsing; default CAPTION_BUDGET_PER_FILE_MS. */
  budgetMs?: number;
}

/** What every indexer of the documents folder reads with: the same folders, network rule and image reader. */
export interface IndexerReading {
  documentsDir: string;
  /** The index folder, where the caption cache lives. */
  indexDir: string;
  /** Fetch `.url` targets on private and loopback addresses too (profiles.yaml security.block_private_network: false). */
  allowPrivateAddresses: boolean;
  /** Reads images; null or absent: images are left out. */
  captioner?: ImageCaptioner | null;
}

/** The extractor options of `cortex index`, the page's upload and the documents server alike. */
export function indexerExtractorOptions({ documentsDir, indexDir, allowPrivateAddresses, captioner }: IndexerReading): CreateExtractorOptions {
  return {
    documentsDir,
    fetchUrl: createSafeFetch({ allowPrivateAddresses }),
    ...(captioner ? { images: { captioner, cacheDir: indexDir } } : {}),
  };
}

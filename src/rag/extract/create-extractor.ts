// The Extractor: checks and reads each file on the host, parses it in a killable worker thread with per-file limits, captions its images.
import { createHash, randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import { errorMessage } from '../../errors.js';
import { builtPath } from '../../paths.js';
import { DEFAULT_EXTRACTION_LIMITS, type ExtractionLimits, type ExtractionResult, type Extractor } from '../types.js';
import { openCaptionCache, type CaptionCache } from '../vision/caption-cache.js';
import { captionImages } from '../vision/caption-images.js';
import type { ImageCaptioner } from '../vision/image-captioner.js';
import { CAPTION_BUDGET_PER_FILE_MS } from '../vision/image-limits.js';
import { type FileFormat, formatOfContentType, formatOfPath, type ParseFormat } from './formats.js';
import type { FoundImage, LocalImageRef } from './image-placeholder.js';
import { finishResult } from './parsed.js';
import { MAX_LOCAL_IMAGE_BYTES, MAX_URL_FILE_BYTES, WORKER_HEAP_MB, WORKER_MAX_FILES, WORKER_RETIRE_HEAP_MB, resolveExtractionLimits } from './limits.js';
import { ParseWorker } from './parse-worker.js';
import { readResolved, resolveSafely, formatBytes } from './read-safely.js';
import { createSafeFetch, type FetchUrl, type FetchedBody } from './safe-fetch.js';
import { checkWebUrl, readUrlFile } from './url-file.js';

export interface CreateExtractorOptions {
  /** The documents folder; only regular files inside it (symlinks resolved) are read. */
  documentsDir: string;
  /** Fetches the target of `.url` files and extractUrl(); default createSafeFetch() (public http(s) only, 15 s, 5 MB). */
  fetchUrl?: FetchUrl;
  /** Per-file limits used when extract() is given none; default DEFAULT_EXTRACTION_LIMITS. */
  limits?: Partial<ExtractionLimits>;
  /** V8 heap of the parse worker, in MB; default WORKER_HEAP_MB. Past it the worker dies and the file is too_large. */
  workerHeapMb?: number;
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

/**
 * Creates an Extractor for one documents folder (DESIGN §3.8). Files are extracted one at a time in a
 * worker thread with a capped heap; the worker is reused while healthy, terminated at a file's
 * deadline, and replaced after it dies, runs out of heap, grows big or has parsed WORKER_MAX_FILES.
 * extract() and extractUrl() never throw.
 */
export function createExtractor(options: CreateExtractorOptions): WorkerExtractor {
  return new WorkerExtractor(options);
}

type Failure = Extract<ExtractionResult, { ok: false }>;

/** Bytes for the parse worker; `folder` (the file's own folder) only for files of the documents folder. */
interface ParseInput {
  format: ParseFormat;
  bytes: Uint8Array;
  name: string;
  contentType?: string;
  folder?: string;
}

/** A file of the documents folder, read and hashed, waiting for its parse. */
interface ReadFile {
  format: FileFormat;
  bytes: Uint8Array;
  name: string;
  folder: string;
  sha256: string;
}

export class WorkerExtractor implements Extractor {
  private readonly documentsDir: string;
  private readonly fetchUrl: FetchUrl;
  private readonly defaults: ExtractionLimits;
  private readonly heapMb: number;
  private readonly workerPath: string;
  private readonly images: ImageCaptionSettings | undefined;
  private captionCache: Promise<CaptionCache | undefined> | null = null;
  private worker: ParseWorker | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private nextId = 1;
  private closed = false;

  constructor(options: CreateExtractorOptions) {
    this.documentsDir = options.documentsDir;
    this.fetchUrl = options.fetchUrl ?? createSafeFetch();
    this.defaults = resolveExtractionLimits(options.limits ?? {}, DEFAULT_EXTRACTION_LIMITS);
    this.heapMb = options.workerHeapMb ?? WORKER_HEAP_MB;
    this.workerPath = options.workerPath ?? builtPath('src/rag/extract/extract-worker.js');
    this.images = options.images;
  }

  get imageReader(): string | undefined {
    return this.images?.captioner.id;
  }

  /** Thread id of the current worker, if one is running (for tests and diagnostics). */
  get workerThreadId(): number | undefined {
    return this.worker?.alive ? this.worker.threadId : undefined;
  }

  /**
   * The file is checked, read and hashed at once, so calls in a row overlap their disk reads with the parse before
   * them; parses run one at a time, each under its own deadline from when it starts.
   */
  extract(path: string, limits?: Partial<ExtractionLimits>): Promise<ExtractionResult> {
    const lim = resolveExtractionLimits(limits ?? {}, this.defaults);
    const read = this.readFile(path, lim);
    return this.enqueue(async (deadline) => {
      const file = await read;
      if ('ok' in file) return file;
      const result = file.format === 'url' ? await this.fetchUrlFile(file, lim, deadline) : await this.parse({ ...file, format: file.format }, lim, deadline);
      return { ...result, sha256: file.sha256 };
    }, lim);
  }

  /**
   * Fetches an http(s) URL with the extractor's fetchUrl and extracts it like a `.url` file
   * (for the documents server's convert_webpage_url_into_markdown). Format 'url'; never throws.
   */
  extractUrl(url: string, limits?: Partial<ExtractionLimits>): Promise<ExtractionResult> {
    const lim = resolveExtractionLimits(limits ?? {}, this.defaults);
    return this.enqueue((deadline) => {
      const target = checkWebUrl(url, url);
      return target.ok ? this.fetchAndParse(target.url, target.url, lim, deadline) : Promise.resolve(fail('fetch_error', target.message));
    }, lim);
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.queue;
    await this.retire();
  }

  // Files are parsed one at a time: parsing is CPU-bound and the machine may have two cores.
  private enqueue(job: (deadline: number) => Promise<ExtractionResult>, limits: ExtractionLimits): Promise<ExtractionResult> {
    const run = async (): Promise<ExtractionResult> => {
      if (this.closed) return fail('parse_error', 'The extractor was closed.');
      try {
        return await job(performance.now() + limits.timeoutMs);
      } catch (err) {
        // Our own bug, not the file's; still a result, because extract() never throws.
        await this.retire();
        return fail('parse_error', `Extraction failed unexpectedly: ${errorMessage(err)}`);
      }
    };
    const result = this.queue.then(run);
    this.queue = result;
    return result;
  }

  /** Checks and reads one file of the folder, and hashes the bytes read. Never rejects. */
  private async readFile(path: string, limits: ExtractionLimits): Promise<ReadFile | Failure> {
    try {
      const resolved = await resolveSafely(this.documentsDir, path);
      if (!resolved.ok) return resolved;
      const format = formatOfPath(path);
      if (format === null) return fail('unsupported', `${resolved.shown}: this file type is not supported.`);
      const maxBytes = format === 'url' ? Math.min(limits.maxFileBytes, MAX_URL_FILE_BYTES) : limits.maxFileBytes;
      const read = await readResolved(resolved, maxBytes);
      if (!read.ok) return read;
      const sha256 = createHash('sha256').update(read.bytes).digest('hex');
      return { format, bytes: read.bytes, name: resolved.shown, folder: dirname(resolved.realPath), sha256 };
    } catch (err) {
      return fail('parse_error', `Reading ${path} failed unexpectedly: ${errorMessage(err)}`);
    }
  }

  private async fetchUrlFile(file: ReadFile, limits: ExtractionLimits, deadline: number): Promise<ExtractionResult> {
    const target = readUrlFile(new TextDecoder().decode(file.bytes), file.name);
    if (!target.ok) return fail('fetch_error', target.message);
    return this.fetchAndParse(target.url, file.name, limits, deadline);
  }

  private async fetchAndParse(url: string, name: string, limits: ExtractionLimits, deadline: number): Promise<ExtractionResult> {
    const fetched = await this.fetchBefore(url, name, limits, deadline);
    if ('ok' in fetched) return fetched;
    const bytes = typeof fetched.body === 'string' ? Buffer.from(fetched.body, 'utf8') : fetched.body;
    if (bytes.byteLength > limits.maxFileBytes) {
      return fail('too_large', `${name}: ${url} is larger than the ${formatBytes(limits.maxFileBytes)} limit.`);
    }
    // A string body is already decoded: tell the HTML parser it is UTF-8 now, whatever the page's <meta> says.
    const contentType = typeof fetched.body === 'string' ? `${fetched.contentType.split(';')[0] ?? ''}; charset=utf-8` : fetched.contentType;
    const format = formatOfContentType(contentType, bytes);
    if (format === null) return fail('unsupported', `${name}: ${url} returned ${fetched.contentType || 'an unknown type'}, which is not supported.`);
    const result = await this.parse({ format, bytes, name, contentType }, limits, deadline);
    return result.ok ? { ...result, format: 'url' } : result;
  }

  /** The fetch, cut off at the file's deadline (its own timeout may be longer). */
  private fetchBefore(url: string, name: string, limits: ExtractionLimits, deadline: number): Promise<FetchedBody | Failure> {
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<Failure>((resolve) => {
      timer = setTimeout(() => {
        controller.abort();
        resolve(timeoutFailure(name, limits));
      }, Math.max(0, deadline - performance.now()));
    });
    // Called inside then() so that an injected fetch that throws instead of rejecting is still a fetch_error.
    const fetched = Promise.resolve()
      .then(() => this.fetchUrl(url, { signal: controller.signal, maxBytes: limits.maxFileBytes }))
      .then(
        (got): FetchedBody | Failure =>
          isFetchedBody(got)
            ? { contentType: typeof got.contentType === 'string' ? got.contentType : '', body: got.body }
            : fail('fetch_error', `Fetching ${url} returned no body.`),
        (err: unknown): Failure => fail('fetch_error', errorMessage(err)),
      );
    return Promise.race([fetched, timedOut]).finally(() => clearTimeout(timer));
  }

  private async parse(
    file: ParseInput,
    limits: ExtractionLimits,
    deadline: number,
  ): Promise<ExtractionResult> {
    const nonce = randomBytes(6).toString('hex');
    const parsed = await this.runWorker(file, limits, deadline, nonce);
    if (!parsed.ok) return parsed;
    const { result, images, localImages } = parsed;
    if (!this.images || !result.ok) return result;
    if (file.folder && localImages.length > 0) images.push(...(await this.readLocalImages(localImages, file.folder, limits, deadline, nonce)));
    // Placeholders of local images that could not be read are removed by caption() too.
    if (images.length === 0 && localImages.length === 0) return result;
    return this.caption(result, images, nonce, file.name, limits, this.images);
  }

  /** One parse on the worker, cut off at `deadline`; a timeout, crash or heap death is the file's failure. */
  private async runWorker(
    file: ParseInput,
    limits: ExtractionLimits,
    deadline: number,
    nonce: string,
  ): Promise<{ ok: true; result: ExtractionResult; images: FoundImage[]; localImages: LocalImageRef[] } | Failure> {
    const remaining = deadline - performance.now();
    if (remaining <= 0) return timeoutFailure(file.name, limits);
    const worker = this.acquireWorker();
    worker.files++;
    // The worker takes over the buffer; a view into a shared pool (small Buffers) is copied first.
    const owned = file.bytes.byteOffset === 0 && file.bytes.byteLength === file.bytes.buffer.byteLength ? file.bytes : new Uint8Array(file.bytes);
    const outcome = await worker.run(
      {
        type: 'parse',
        id: this.nextId++,
        format: file.format,
        bytes: owned,
        name: file.name,
        maxTextChars: limits.maxTextChars,
        ...(file.contentType ? { contentType: file.contentType } : {}),
        ...(this.images ? { images: { nonce, localFiles: file.folder !== undefined } } : {}),
        ...(limits.structuralChunks ? { chunk: limits.structuralChunks } : {}),
      },
      remaining,
    );
    switch (outcome.kind) {
      case 'result':
        if (outcome.heapUsedMb > WORKER_RETIRE_HEAP_MB || worker.files >= WORKER_MAX_FILES) await this.retire();
        return { ok: true, result: outcome.result, images: outcome.images, localImages: outcome.localImages };
      case 'timeout':
        await this.retire();
        return timeoutFailure(file.name, limits);
      case 'died':
        await this.retire();
        if (outcome.outOfMemory) {
          return fail('too_large', `${file.name} needed more than ${this.heapMb} MB of memory to parse; it was skipped.`);
        }
        return fail('parse_error', `The parser crashed on ${file.name} (${outcome.detail}).`);
    }
  }

  /**
   * Reads the image files an HTML page shows from beside it (`<img src="figures/a.png">`), only regular files
   * inside the documents folder, each prepared on the worker like an image file and numbered as the page
   * reserved. Unreadable ones are left out (their placeholder is dropped).
   */
  private async readLocalImages(refs: LocalImageRef[], folder: string, limits: ExtractionLimits, deadline: number, nonce: string): Promise<FoundImage[]> {
    const found: FoundImage[] = [];
    for (const ref of refs) {
      const resolved = await resolveSafely(this.documentsDir, join(folder, ref.path));
      if (!resolved.ok) continue;
      const read = await readResolved(resolved, Math.min(limits.maxFileBytes, MAX_LOCAL_IMAGE_BYTES));
      if (!read.ok) continue;
      const parsed = await this.runWorker({ format: 'image', bytes: read.bytes, name: resolved.shown }, limits, deadline, nonce);
      const image = parsed.ok ? parsed.images[0] : undefined;
      if (image) found.push({ ...image, n: ref.n, kind: 'figure', page: ref.page });
    }
    return found;
  }

  /**
   * Captions the images the worker found (on this thread: captioners wait on a model or a process, not the CPU)
   * within the settings' budget, then finishes the text again (placeholders replaced, empty pages dropped, cap).
   */
  private async caption(
    result: Extract<ExtractionResult, { ok: true }>,
    images: FoundImage[],
    nonce: string,
    name: string,
    limits: ExtractionLimits,
    settings: ImageCaptionSettings,
  ): Promise<ExtractionResult> {
    const cache = await this.openCache(settings);
    const deadline = performance.now() + (settings.budgetMs ?? CAPTION_BUDGET_PER_FILE_MS);
    const captioned = await captionImages({ pages: result.pages, images, nonce, name, captioner: settings.captioner, cache, deadline });
    const warnings = [...result.warnings, ...captioned.warnings];
    try {
      await cache?.save();
    } catch (err) {
      warnings.push(`The image caption cache could not be saved (${errorMessage(err)}); captions will be asked again.`);
    }
    const finished = finishResult(result.format, { ok: true, title: result.title, pages: captioned.pages, warnings }, name, limits.maxTextChars);
    if (!finished.ok && finished.reason === 'no_text' && captioned.warnings.length > 0) {
      return { ok: false, reason: 'no_text', message: captioned.warnings.join(' ') };
    }
    return finished;
  }

  private openCache(settings: ImageCaptionSettings): Promise<CaptionCache | undefined> {
    const dir = settings.cacheDir;
    this.captionCache ??= dir ? openCaptionCache(dir) : Promise.resolve(undefined);
    return this.captionCache;
  }

  private acquireWorker(): ParseWorker {
    if (!this.worker?.alive) this.worker = ParseWorker.start(this.workerPath, this.heapMb);
    return this.worker;
  }

  private async retire(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    await worker?.terminate();
  }
}

function fail(reason: Failure['reason'], message: string): Failure {
  return { ok: false, reason, message };
}

function timeoutFailure(name: string, limits: ExtractionLimits): Failure {
  return fail('timeout', `${name} took longer than the ${formatSeconds(limits.timeoutMs)} limit to extract; it was skipped.`);
}

function formatSeconds(ms: number): string {
  return ms >= 1000 ? `${Math.round(ms / 100) / 10} s` : `${ms} ms`;
}

function isFetchedBody(value: unknown): value is FetchedBody {
  if (typeof value !== 'object' || value === null) return false;
  const body = (value as Partial<FetchedBody>).body;
  return typeof body === 'string' || body instanceof Uint8Array;
}

// The Extractor: has each file checked, read and parsed in a killable worker thread with per-file limits, captions its images.
import { basename, join } from 'node:path';
import { errorMessage } from '../../errors.js';
import { builtPath } from '../../paths.js';
import { DEFAULT_EXTRACTION_LIMITS, type ExtractionLimits, type ExtractionResult, type Extractor } from '../types.js';
import { openCaptionCache, type CaptionCache } from '../vision/caption-cache.js';
import { type FileFormat, formatOfContentType, formatOfPath } from './formats.js';
import type { FoundImage, LocalImageRef } from './image-placeholder.js';
import type { CreateExtractorOptions, ImageCaptionSettings } from './extractor-options.js';
export type { CreateExtractorOptions, ImageCaptionSettings } from './extractor-options.js';
import { captionFile } from './file-captions.js';
import { fail, isFetchedBody, newNonce, timeoutFailure, type Failure } from './extraction-failure.js';
import {
  BATCH_MAX_BYTES,
  BATCH_MAX_FILES,
  FIRST_BATCH_MAX_FILES,
  MAX_LOCAL_IMAGE_BYTES,
  MAX_URL_FILE_BYTES,
  WORKER_HEAP_MB,
  WORKER_MAX_PARSER_FILES,
  WORKER_RETIRE_HEAP_MB,
  resolveExtractionLimits,
} from './limits.js';
import { ParseWorker, type ParsedFile, type ParseJobOutcome } from './parse-worker.js';
import type { ParseRequest } from './protocol.js';
import { formatBytes } from './read-safely.js';
import { createSafeFetch, type FetchUrl, type FetchedBody } from './safe-fetch.js';
import { checkWebUrl } from './url-file.js';

/**
 * Creates an Extractor for one documents folder (DESIGN §3.8). Files are extracted one at a time in a
 * worker thread with a capped heap (small text files already read go several to a message); the worker is
 * reused while healthy, terminated at a file's deadline, and replaced after it dies, runs out of heap, grows
 * big or has parsed WORKER_MAX_PARSER_FILES files with a library. extract() and extractUrl() never throw.
 */
export function createExtractor(options: CreateExtractorOptions): WorkerExtractor {
  return new WorkerExtractor(options);
}

/** A file for the parse worker: bytes in hand (a fetched page) or a file of the documents folder for it to read. */
interface ParseInput {
  /** Null for a file of an unsupported type (see ParseRequest.format). */
  format: FileFormat | null;
  source: ParseRequest['source'];
  name: string;
  contentType?: string;
}

/** Times a message the worker ended before starting is sent again (each time, a batch sent ahead of it failed). */
const MAX_RESENDS = 2;

/** Plain text formats: no images, no fetches, parsed in a few milliseconds, so they can share a worker message. */
const TEXT_FORMATS: ReadonlySet<FileFormat | null> = new Set<FileFormat>(['txt', 'md', 'csv', 'json']);

/** One extract() or extractUrl() call waiting for its turn. */
interface Job {
  limits: ExtractionLimits;
  /** Runs the call on its own, under a deadline counted from when it starts. */
  alone(deadline: number): Promise<ExtractionResult>;
  /** Only for a plain text file of the documents folder, which a batch may take. */
  text?: ParseInput;
  settle(result: ExtractionResult): void;
}

export class WorkerExtractor implements Extractor {
  private readonly documentsDir: string;
  private readonly fetchUrl: FetchUrl;
  private readonly defaults: ExtractionLimits;
  private readonly heapMb: number;
  private readonly maxParserFiles: number;
  private readonly workerPath: string;
  private readonly images: ImageCaptionSettings | undefined;
  private worker: ParseWorker | null = null;
  private cache: Promise<CaptionCache | undefined> | null = null;
  /** Calls waiting for their turn, oldest first. */
  private readonly jobs: Job[] = [];
  /** One turn per call, each taking the oldest waiting calls; close() waits for the last. */
  private queue: Promise<unknown> = Promise.resolve();
  /** The last batch sent, until its files are settled: the next batch may be sent while it is parsed. */
  private batchInFlight: Promise<void> = Promise.resolve();
  private nextId = 1;
  private messages = 0;
  private closed = false;

  constructor(options: CreateExtractorOptions) {
    this.documentsDir = options.documentsDir;
    this.fetchUrl = options.fetchUrl ?? createSafeFetch();
    this.defaults = resolveExtractionLimits(options.limits ?? {}, DEFAULT_EXTRACTION_LIMITS);
    this.heapMb = options.workerHeapMb ?? WORKER_HEAP_MB;
    this.maxParserFiles = options.workerMaxParserFiles ?? WORKER_MAX_PARSER_FILES;
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

  /** Messages sent to parse workers so far, each with one file or a batch of them (for tests and diagnostics). */
  get workerMessages(): number {
    return this.messages;
  }

  /**
   * The worker checks, reads, hashes and parses the file, one file at a time, each under its own deadline from when
   * it starts. A plain text file whose turn comes takes the plain text files waiting behind it along into the same
   * worker message.
   */
  extract(path: string, limits?: Partial<ExtractionLimits>): Promise<ExtractionResult> {
    const lim = resolveExtractionLimits(limits ?? {}, this.defaults);
    const format = formatOfPath(path);
    const name = basename(path) || path;
    const maxBytes = format === 'url' ? Math.min(lim.maxFileBytes, MAX_URL_FILE_BYTES) : lim.maxFileBytes;
    const file: ParseInput = { format, name, source: { file: { root: this.documentsDir, path, maxBytes } } };
    return this.enqueue((deadline) => this.parse(file, lim, deadline), lim, TEXT_FORMATS.has(format) ? file : undefined);
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

  /** Starts the parse worker now, so its start-up overlaps the caller's work (a folder scan) instead of the first file. */
  prepare(): void {
    if (!this.closed) this.acquireWorker();
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.queue;
    await this.batchInFlight;
    await this.retire();
  }

  // Files are parsed one at a time: parsing is CPU-bound and the machine may have two cores.
  private enqueue(alone: Job['alone'], limits: ExtractionLimits, text?: ParseInput): Promise<ExtractionResult> {
    return new Promise<ExtractionResult>((settle) => {
      this.jobs.push({ limits, alone, settle, ...(text ? { text } : {}) });
      // A turn whose call an earlier batch took finds the next call waiting, or none.
      this.queue = this.queue.then(() => this.takeTurn());
    });
  }

  /**
   * Runs the oldest waiting call, with the plain text files waiting behind it when it is one. A batch's turn ends
   * once it is sent and the batch before it is done, so the worker has the next batch waiting while this thread
   * takes in the last one's results (1,000 small files indexed 1.12× faster). Never rejects.
   */
  private async takeTurn(): Promise<void> {
    const head = this.jobs.shift();
    if (!head) return;
    const batch = this.takeBatch(head);
    const before = this.batchInFlight;
    if (batch.length > 1) {
      this.batchInFlight = this.runBatch(batch);
      await before;
    } else {
      await before;
      head.settle(await this.runAlone(head));
    }
  }

  private async runAlone(job: Job): Promise<ExtractionResult> {
    if (this.closed) return fail('parse_error', 'The extractor was closed.');
    try {
      return await job.alone(performance.now() + job.limits.timeoutMs);
    } catch (err) {
      // Our own bug, not the file's; still a result, because extract() never throws.
      await this.retire();
      return fail('parse_error', `Extraction failed unexpectedly: ${errorMessage(err)}`);
    }
  }

  /** `head` (a plain text file) and the plain text files waiting right behind it, up to BATCH_MAX_FILES. */
  private takeBatch(head: Job): Job[] {
    if (!head.text || this.closed) return [];
    const batch = [head];
    const most = this.messages === 0 ? FIRST_BATCH_MAX_FILES : BATCH_MAX_FILES;
    while (batch.length < most && this.jobs[0]?.text) batch.push(this.jobs.shift()!);
    return batch;
  }

  /**
   * Parses the files in one worker message. When that fails as a whole (timeout, crash, heap death, our own bug),
   * each file is parsed again alone, as if no batch had been tried: the file to blame fails with its own reason
   * and message, and the others succeed. Files the worker left for later (past BATCH_MAX_BYTES read) wait again
   * at the front of the queue, where the turns of the files the batch took will find them.
   */
  private async runBatch(batch: Job[]): Promise<void> {
    let results: Array<ExtractionResult | null> | null;
    try {
      results = await this.parseBatch(batch);
    } catch {
      // Our own bug, not a file's: a fresh worker for what follows.
      results = null;
      await this.retire();
    }
    const deferred: Job[] = [];
    for (const [i, job] of batch.entries()) {
      const result = results ? results[i] : undefined;
      if (result === null) deferred.push(job);
      else job.settle(result ?? (await this.runAlone(job)));
    }
    this.jobs.unshift(...deferred);
    // Their own turns may have passed while this batch was parsed.
    for (const _ of deferred) this.queue = this.queue.then(() => this.takeTurn());
  }

  /**
   * The batch's results in order (null for a file left for later), or null when it failed as a whole. Each file
   * keeps its own deadline from the batch's start; the batch is cut at the smallest of their time limits (small
   * text files taking longer together than one file may take alone means something is wrong; parsed alone again,
   * each gets its own).
   */
  private async parseBatch(batch: Job[]): Promise<Array<ExtractionResult | null> | null> {
    const started = performance.now();
    const nonces = batch.map(() => newNonce());
    const requests = batch.map((job, i) => this.request(job.text!, job.limits, nonces[i]!));
    const outcome = await this.send(requests, Math.min(...batch.map(({ limits }) => limits.timeoutMs)), BATCH_MAX_BYTES);
    if (outcome.kind !== 'results') return null;
    return Promise.all(
      batch.map(async (job, i) => {
        const parsed = outcome.files[i];
        return parsed ? this.afterParse(parsed, job.text!, job.limits, started + job.limits.timeoutMs, nonces[i]!) : null;
      }),
    );
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
    const result = await this.parse({ format, source: { bytes }, name, contentType }, limits, deadline);
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

  /** Parses one file alone on the worker, then fetches what a `.url` file names or captions the images found. */
  private async parse(file: ParseInput, limits: ExtractionLimits, deadline: number): Promise<ExtractionResult> {
    const nonce = newNonce();
    const parsed = await this.runWorker(file, limits, deadline, nonce);
    return parsed.ok ? this.afterParse(parsed, file, limits, deadline, nonce) : parsed;
  }

  /** What the host does with a parsed file: fetch the page a `.url` file names, or caption the file's images. */
  private async afterParse(parsed: ParsedFile, file: ParseInput, limits: ExtractionLimits, deadline: number, nonce: string): Promise<ExtractionResult> {
    const result = parsed.url === undefined ? await this.withImages(parsed, file.name, limits, deadline, nonce) : await this.fetchAndParse(parsed.url, file.name, limits, deadline);
    // The hash of the file the worker read (a `.url` file's own), whatever captioning or fetching made of it.
    const { sha256 } = parsed.result;
    return sha256 ? { ...result, sha256 } : result;
  }

  /** The parsed file's result, with its images captioned when a captioner is set up. */
  private async withImages(parsed: ParsedFile, name: string, limits: ExtractionLimits, deadline: number, nonce: string): Promise<ExtractionResult> {
    const { result, images, localImages, folder } = parsed;
    if (!this.images || !result.ok) return result;
    if (folder && localImages.length > 0) images.push(...(await this.readLocalImages(localImages, folder, limits, deadline, nonce)));
    // Placeholders of local images that could not be read are removed by caption() too.
    if (images.length === 0 && localImages.length === 0) return result;
    return captionFile({ result, images, nonce, name, limits, settings: this.images, cache: this.captionCache() });
  }

  /** One parse on the worker, cut off at `deadline`; a timeout, crash or heap death is the file's failure. */
  private async runWorker(file: ParseInput, limits: ExtractionLimits, deadline: number, nonce: string): Promise<({ ok: true } & ParsedFile) | Failure> {
    const remaining = deadline - performance.now();
    if (remaining <= 0) return timeoutFailure(file.name, limits);
    const outcome = await this.send([this.request(file, limits, nonce)], remaining);
    switch (outcome.kind) {
      case 'results': {
        const parsed = outcome.files[0];
        return parsed ? { ok: true, ...parsed } : fail('parse_error', `The parser left ${file.name} unread.`);
      }
      case 'timeout':
        return timeoutFailure(file.name, limits);
      case 'not_started':
        return fail('parse_error', `The parser stopped before it got to ${file.name}.`);
      case 'died':
        if (outcome.outOfMemory) {
          return fail('too_large', `${file.name} needed more than ${this.heapMb} MB of memory to parse; it was skipped.`);
        }
        return fail('parse_error', `The parser crashed on ${file.name} (${outcome.detail}).`);
    }
  }

  /** A parse request for `file`; bytes in hand move to the worker (a view into a shared pool is copied first). */
  private request(file: ParseInput, limits: ExtractionLimits, nonce: string): ParseRequest {
    const { source } = file;
    const owned = 'bytes' in source && (source.bytes.byteOffset !== 0 || source.bytes.byteLength !== source.bytes.buffer.byteLength) ? { bytes: new Uint8Array(source.bytes) } : source;
    return {
      type: 'parse',
      id: this.nextId++,
      format: file.format,
      source: owned,
      name: file.name,
      maxTextChars: limits.maxTextChars,
      ...(file.contentType ? { contentType: file.contentType } : {}),
      ...(this.images ? { images: { nonce, localFiles: 'file' in source } } : {}),
      ...(limits.structuralChunks ? { chunk: limits.structuralChunks } : {}),
    };
  }

  /**
   * Sends one message of files to the worker (started if need be) and waits for its outcome. A worker that timed
   * out, died, grew big or parsed its share of files with a library is retired (that one only: a worker started
   * since in its place stays).
   */
  private async send(requests: ParseRequest[], timeoutMs: number, maxBytes?: number): Promise<ParseJobOutcome> {
    let outcome: ParseJobOutcome = { kind: 'not_started' };
    // Files a worker ended before starting (a batch ahead of them failed) go again, to the worker that replaces it.
    for (let attempt = 0; attempt <= MAX_RESENDS && outcome.kind === 'not_started'; attempt++) {
      const worker = this.acquireWorker();
      worker.parserFiles += requests.filter(({ format }) => !TEXT_FORMATS.has(format)).length;
      this.messages++;
      outcome = await worker.run(requests, timeoutMs, maxBytes);
      const heapUsedMb = outcome.kind === 'results' ? (outcome.files.filter((file) => file !== null).at(-1)?.heapUsedMb ?? 0) : 0;
      if (outcome.kind !== 'results' || heapUsedMb > WORKER_RETIRE_HEAP_MB || worker.parserFiles >= this.maxParserFiles) await this.retire(worker);
    }
    return outcome;
  }

  /**
   * The image files an HTML page shows from beside it (`<img src="figures/a.png">`), only regular files inside the
   * documents folder, each read and prepared by the worker like an image file and numbered as the page reserved. Unreadable ones are left out (their placeholder is dropped).
   */
  private async readLocalImages(refs: LocalImageRef[], folder: string, limits: ExtractionLimits, deadline: number, nonce: string): Promise<FoundImage[]> {
    const found: FoundImage[] = [];
    const maxBytes = Math.min(limits.maxFileBytes, MAX_LOCAL_IMAGE_BYTES);
    for (const ref of refs) {
      const path = join(folder, ref.path);
      const source = { file: { root: this.documentsDir, path, maxBytes } };
      const parsed = await this.runWorker({ format: 'image', source, name: basename(path) || path }, limits, deadline, nonce);
      const image = parsed.ok ? parsed.images[0] : undefined;
      if (image) found.push({ ...image, n: ref.n, kind: 'figure', page: ref.page });
    }
    return found;
  }

  /** The caption cache, opened on first use (captions survive between runs in the index folder). */
  private captionCache(): Promise<CaptionCache | undefined> {
    const dir = this.images?.cacheDir;
    this.cache ??= dir ? openCaptionCache(dir) : Promise.resolve(undefined);
    return this.cache;
  }

  private acquireWorker(): ParseWorker {
    if (!this.worker?.alive) this.worker = ParseWorker.start(this.workerPath, this.heapMb);
    return this.worker;
  }

  /** Stops `worker` (by default the current one); a newer worker already started in its place stays. */
  private async retire(worker = this.worker): Promise<void> {
    if (worker === this.worker) this.worker = null;
    await worker?.terminate();
  }
}

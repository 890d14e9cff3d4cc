// Parse worker thread: receives a batch of files, checks and reads each one, parses them one after another, replies once with their results. Run by ParseWorker.
import { createHash } from 'node:crypto';
import { dirname } from 'node:path';
import { getHeapStatistics } from 'node:v8';
import { parentPort } from 'node:worker_threads';
import { errorMessage } from '../../errors.js';
import type { ExtractionResult } from '../types.js';
import type { FileFormat, ParseFormat } from './formats.js';
import { ImageCollector } from './image-collector.js';
import { finishResult, parseError, type ExtractionFailure, type ParseOutcome } from './parsed.js';
import type { DeferredReply, ParseBatch, ParseBatchReply, ParseReply, ParseRequest } from './protocol.js';
import { newRealPathCache, readResolved, resolveSafely, type RealPathCache } from './read-safely.js';
import { readUrlFile } from './url-file.js';

const port = parentPort;
if (!port) throw new Error('extract-worker.js must run as a worker thread');

// pdfjs can leave a rejected promise behind after destroy(); it must not end the worker (the host would
// count that as a crash). Real failures surface through the awaited parse below.
process.on('unhandledRejection', () => undefined);

// Batches are parsed one after another in the order they came: the host sends the next before this one is done.
let previous: Promise<void> = Promise.resolve();
port.on('message', (batch: ParseBatch) => {
  previous = previous
    .then(() => replyAll(batch))
    .then(
      (replies) => {
        const reply: ParseBatchReply = { type: 'batch-result', replies };
        port.postMessage(reply);
      },
      // No reply: the host's deadline for this batch ends it; the next batch still gets its turn.
      () => undefined,
    );
});

// One after another, not all at once: parsing is CPU-bound, and the heap then holds one file's parse at a time.
async function replyAll({ requests, maxBytes }: ParseBatch): Promise<Array<ParseReply | DeferredReply>> {
  const replies: Array<ParseReply | DeferredReply> = [];
  // The documents folder's real path and those of the files' folders, resolved once per batch rather than once per file.
  const realPaths = newRealPathCache();
  let bytes = 0;
  for (const request of requests) {
    if (bytes >= maxBytes) {
      replies.push({ type: 'deferred', id: request.id });
      continue;
    }
    const { reply, bytesRead } = await replyTo(request, realPaths);
    replies.push(reply);
    bytes += bytesRead;
  }
  return replies;
}

/** The request's bytes and type: in hand, or read from the documents folder (checked like read-safely says, and hashed). */
type Input = { ok: true; format: FileFormat; bytes: Uint8Array; folder?: string; sha256?: string } | ExtractionFailure;

function readInput({ source, format, name }: ParseRequest, realPaths: RealPathCache): Input {
  const unsupported = (shown: string): ExtractionFailure => ({ ok: false, reason: 'unsupported', message: `${shown}: this file type is not supported.` });
  if ('bytes' in source) return format === null ? unsupported(name) : { ok: true, format, bytes: source.bytes };
  const { root, path, maxBytes } = source.file;
  const resolved = resolveSafely(root, path, realPaths);
  if (!resolved.ok) return resolved;
  // After the path checks, so that a path that is unsafe (a directory, a symlink out) says so whatever its name.
  if (format === null) return unsupported(resolved.shown);
  const read = readResolved(resolved, maxBytes);
  if (!read.ok) return read;
  const sha256 = createHash('sha256').update(read.bytes).digest('hex');
  // A plain Uint8Array view (pdf.js refuses a Buffer) of memory the read gave this file alone.
  const bytes = new Uint8Array(read.bytes.buffer, read.bytes.byteOffset, read.bytes.byteLength);
  return { ok: true, format, bytes, folder: dirname(read.realPath), sha256 };
}

async function replyTo(request: ParseRequest, realPaths: RealPathCache): Promise<{ reply: ParseReply; bytesRead: number }> {
  const reply = (result: ExtractionResult, extra: Partial<ParseReply> = {}): ParseReply => ({
    type: 'result',
    id: request.id,
    result,
    heapUsedMb: Math.round(getHeapStatistics().used_heap_size / 2 ** 20),
    ...extra,
  });
  const input = readInput(request, realPaths);
  if (!input.ok) return { reply: reply(input), bytesRead: 0 };
  const { format, bytes, folder, sha256 } = input;
  const hashed = (result: ExtractionResult): ExtractionResult => (sha256 ? { ...result, sha256 } : result);
  if (format === 'url') {
    const target = readUrlFile(new TextDecoder().decode(bytes), request.name);
    const result: ExtractionResult = target.ok ? { ok: true, format: 'url', title: null, pages: [], warnings: [] } : { ok: false, reason: 'fetch_error', message: target.message };
    return { reply: reply(hashed(result), target.ok ? { url: target.url } : {}), bytesRead: bytes.byteLength };
  }
  const images = request.images ? new ImageCollector(request.images.nonce, request.images.localFiles) : undefined;
  const result = await handle(request, format, bytes, images);
  const found = result.ok && images ? { images: images.images, localImages: images.localImages } : {};
  return { reply: reply(hashed(result), { ...found, ...(folder ? { folder } : {}) }), bytesRead: bytes.byteLength };
}

async function handle(request: ParseRequest, format: ParseFormat, bytes: Uint8Array, images: ImageCollector | undefined): Promise<ExtractionResult> {
  try {
    const outcome = await parse(format, bytes, request, images);
    if (outcome.ok && images) outcome.warnings.push(...images.warnings(request.name));
    const result = finishResult(format, outcome, request.name, request.maxTextChars);
    // Chunked here, not on the host, so a slow or huge chunking is cut by the same deadline and heap cap as the parse.
    // Not when images were found: their captions replace placeholders on the host, which chunks the text then.
    const foundImages = images ? images.images.length + images.localImages.length : 0;
    if (!result.ok || !request.chunk || foundImages > 0) return result;
    const { chunkStructural } = await parsers.chunker();
    // The text goes back once, as chunks: the pages too would double what is copied between the threads.
    return { ...result, pages: [], chunks: chunkStructural(result.pages, request.chunk) };
  } catch (err) {
    if (err instanceof RangeError && /call stack/i.test(err.message)) {
      return parseError(`${request.name} is nested too deeply to parse.`);
    }
    return parseError(`${request.name} could not be parsed (${errorMessage(err)}).`);
  }
}

/** Imports a module on first use and keeps it: a dynamic import() resolves its specifier again on every call. */
function once<T>(load: () => Promise<T>): () => Promise<T> {
  let loaded: Promise<T> | undefined;
  return () => (loaded ??= load());
}

// Parsers are imported on first use, so a worker that only sees PDFs never loads jsdom and the reverse.
const parsers = {
  pdf: once(() => import('./parse-pdf.js')),
  html: once(() => import('./parse-html.js')),
  docx: once(() => import('./parse-docx.js')),
  image: once(() => import('./parse-image.js')),
  text: once(() => import('./parse-text.js')),
  chunker: once(() => import('../chunk/structural-chunker.js')),
};
// Plain text, the most common case, is loaded at once (both modules are small): the worker starts while the host scans
// the folder, so these imports are done before the first files arrive rather than after.
void parsers.text();
void parsers.chunker();

async function parse(format: ParseFormat, bytes: Uint8Array, { name, maxTextChars, contentType }: ParseRequest, images: ImageCollector | undefined): Promise<ParseOutcome> {
  switch (format) {
    case 'pdf':
      return (await parsers.pdf()).parsePdf(bytes, name, maxTextChars, images);
    case 'html':
      return (await parsers.html()).parseHtml(bytes, name, contentType, images);
    case 'docx':
      return (await parsers.docx()).parseDocx(bytes, name, images);
    case 'image':
      return (await parsers.image()).parseImage(bytes, name, images);
    case 'txt':
    case 'md':
    case 'csv':
    case 'json':
      return (await parsers.text()).parseText(format, bytes, name);
  }
}

// Parse worker thread: receives a batch of files' bytes, parses them one after another, replies once with their results. Run by ParseWorker.
import { getHeapStatistics } from 'node:v8';
import { parentPort } from 'node:worker_threads';
import { errorMessage } from '../../errors.js';
import type { ExtractionResult } from '../types.js';
import { ImageCollector } from './image-collector.js';
import { finishResult, parseError, type ParseOutcome } from './parsed.js';
import type { ParseBatch, ParseBatchReply, ParseReply, ParseRequest } from './protocol.js';

const port = parentPort;
if (!port) throw new Error('extract-worker.js must run as a worker thread');

// pdfjs can leave a rejected promise behind after destroy(); it must not end the worker (the host would
// count that as a crash). Real failures surface through the awaited parse below.
process.on('unhandledRejection', () => undefined);

port.on('message', (batch: ParseBatch) => {
  void replyAll(batch.requests).then((replies) => {
    const reply: ParseBatchReply = { type: 'batch-result', replies };
    port.postMessage(reply);
  });
});

// One after another, not all at once: parsing is CPU-bound, and the heap then holds one file's parse at a time.
async function replyAll(requests: ParseRequest[]): Promise<ParseReply[]> {
  const replies: ParseReply[] = [];
  for (const request of requests) replies.push(await replyTo(request));
  return replies;
}

async function replyTo(request: ParseRequest): Promise<ParseReply> {
  const images = request.images ? new ImageCollector(request.images.nonce, request.images.localFiles) : undefined;
  const result = await handle(request, images);
  const found = result.ok && images ? { images: images.images, localImages: images.localImages } : {};
  return { type: 'result', id: request.id, result, heapUsedMb: Math.round(getHeapStatistics().used_heap_size / 2 ** 20), ...found };
}

async function handle(request: ParseRequest, images: ImageCollector | undefined): Promise<ExtractionResult> {
  try {
    const outcome = await parse(request, images);
    if (outcome.ok && images) outcome.warnings.push(...images.warnings(request.name));
    const result = finishResult(request.format, outcome, request.name, request.maxTextChars);
    // Chunked here, not on the host, so a slow or huge chunking is cut by the same deadline and heap cap as the parse.
    // Not when images were found: their captions replace placeholders on the host, which chunks the text then.
    const foundImages = images ? images.images.length + images.localImages.length : 0;
    if (!result.ok || !request.chunk || foundImages > 0) return result;
    const { chunkStructural } = await import('../chunk/structural-chunker.js');
    return { ...result, chunks: chunkStructural(result.pages, request.chunk) };
  } catch (err) {
    if (err instanceof RangeError && /call stack/i.test(err.message)) {
      return parseError(`${request.name} is nested too deeply to parse.`);
    }
    return parseError(`${request.name} could not be parsed (${errorMessage(err)}).`);
  }
}

// Parsers are imported on first use, so a worker that only sees PDFs never loads jsdom and the reverse.
async function parse({ format, bytes, name, maxTextChars, contentType }: ParseRequest, images: ImageCollector | undefined): Promise<ParseOutcome> {
  switch (format) {
    case 'pdf':
      return (await import('./parse-pdf.js')).parsePdf(bytes, name, maxTextChars, images);
    case 'html':
      return (await import('./parse-html.js')).parseHtml(bytes, name, contentType, images);
    case 'docx':
      return (await import('./parse-docx.js')).parseDocx(bytes, name, images);
    case 'image':
      return (await import('./parse-image.js')).parseImage(bytes, name, images);
    case 'txt':
    case 'md':
    case 'csv':
    case 'json':
      return (await import('./parse-text.js')).parseText(format, bytes, name);
  }
}

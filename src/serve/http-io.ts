// Reading request bodies with a size cap, and sending JSON answers and errors.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError, toApiError } from './api-error.js';

/** Sends `body` as JSON with `status`. */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** Body bytes still read (and dropped) after refusing a request, so the client can read the refusal; past this the connection is cut. */
const MAX_DISCARDED_BYTES = 8 * 2 ** 20;
/** How long a refused request's remaining body is read before the connection is cut. */
const DISCARD_TIMEOUT_MS = 5_000;

/**
 * Sends an error as `{error: {code, message}}`. When the request's body was not read to its end (a refused
 * 100 MB upload), the rest is read and dropped for a bounded number of bytes and time, then the connection is
 * cut: the client gets to read the refusal instead of a reset, and nothing is buffered.
 */
export function sendError(req: IncomingMessage, res: ServerResponse, err: unknown): void {
  const error = toApiError(err);
  if (res.headersSent) {
    res.destroy();
    return;
  }
  sendJson(res, error.status, { error: { code: error.code, message: error.message } }, error.headers);
  if (!req.complete) discardRest(req);
}

function discardRest(req: IncomingMessage): void {
  let dropped = 0;
  const cut = () => req.destroy();
  const timer = setTimeout(cut, DISCARD_TIMEOUT_MS).unref();
  req.on('data', (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped > MAX_DISCARDED_BYTES) cut();
  });
  req.once('end', () => clearTimeout(timer));
  req.once('close', () => clearTimeout(timer));
  req.resume();
}

const bodyTooLarge = (maxBytes: number) => new ApiError(413, 'body_too_large', `the request body is larger than the limit of ${maxBytes} bytes`);

/**
 * The body's chunks, throwing `tooLarge()` once more than `maxBytes` have come; stopping early leaves the request
 * open so the refusal can still be sent.
 */
export async function* cappedBodyChunks(req: IncomingMessage, maxBytes: number, tooLarge = () => bodyTooLarge(maxBytes)): AsyncGenerator<Buffer> {
  let size = 0;
  for await (const chunk of req.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) throw tooLarge();
    yield chunk;
  }
}

/** Refuses a body announced as larger than `maxBytes` before reading any of it. */
export function checkDeclaredLength(req: IncomingMessage, maxBytes: number): void {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > maxBytes) throw bodyTooLarge(maxBytes);
}

/**
 * Reads a JSON object body of at most `maxBytes` (also when sent chunked, without a length).
 * @throws ApiError 415 (not JSON), 413 (too large), 400 (malformed or not an object).
 */
export async function readJsonBody(req: IncomingMessage, maxBytes: number): Promise<Record<string, unknown>> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json') throw new ApiError(415, 'unsupported_media_type', 'send the body as JSON with Content-Type: application/json');
  checkDeclaredLength(req, maxBytes);
  const chunks: Buffer[] = [];
  for await (const chunk of cappedBodyChunks(req, maxBytes)) chunks.push(chunk);
  let value: unknown;
  try {
    value = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch (err) {
    throw new ApiError(400, 'malformed_json', `the body is not valid JSON: ${(err as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ApiError(400, 'bad_request', 'the body must be a JSON object');
  return value as Record<string, unknown>;
}

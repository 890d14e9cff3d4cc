// Reading request bodies with a size cap, and sending JSON answers and errors.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError, toApiError } from './api-error.js';

/** Sends `body` as JSON with `status`. */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/**
 * Sends an error as `{error: {code, message}}`. A request whose body was not read closes the connection, so a
 * refused 100 MB upload is not drained into the void first.
 */
export function sendError(req: IncomingMessage, res: ServerResponse, err: unknown): void {
  const error = toApiError(err);
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const close: Record<string, string> = req.complete ? {} : { connection: 'close' };
  sendJson(res, error.status, { error: { code: error.code, message: error.message } }, { ...error.headers, ...close });
}

/** Refuses a body announced as larger than `maxBytes` before reading any of it. */
export function checkDeclaredLength(req: IncomingMessage, maxBytes: number): void {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > maxBytes) throw new ApiError(413, 'body_too_large', `the request body is larger than the limit of ${maxBytes} bytes`);
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
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) throw new ApiError(413, 'body_too_large', `the request body is larger than the limit of ${maxBytes} bytes`);
    chunks.push(chunk);
  }
  let value: unknown;
  try {
    value = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch (err) {
    throw new ApiError(400, 'malformed_json', `the body is not valid JSON: ${(err as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ApiError(400, 'bad_request', 'the body must be a JSON object');
  return value as Record<string, unknown>;
}

// The one policy for what the HTTP API takes in: percent-decoding, query values, request bodies that change data,
// and what of a request may be written to the log.
import type { IncomingMessage } from 'node:http';
import { ApiError } from './api-error.js';

/**
 * Decodes one percent-encoded part of a URL strictly: a malformed escape or bytes that are not UTF-8 are the
 * client's mistake (400), never a server error.
 * @throws ApiError 400 bad_encoding.
 */
export function decodeUrlPart(raw: string, what: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new ApiError(400, 'bad_encoding', `${what} has a malformed % escape or is not UTF-8`);
  }
}

/**
 * The value of query parameter `key`, decoded strictly (URLSearchParams would turn a bad escape into U+FFFD and
 * carry on); null when absent.
 * @throws ApiError 400 bad_encoding.
 */
export function queryValue(url: URL, key: string): string | null {
  for (const pair of url.search.slice(1).split('&')) {
    const at = pair.indexOf('=');
    const rawKey = at < 0 ? pair : pair.slice(0, at);
    if (decodeUrlPart(rawKey.replaceAll('+', ' '), 'a query parameter name') !== key) continue;
    return decodeUrlPart((at < 0 ? '' : pair.slice(at + 1)).replaceAll('+', ' '), `the ${key} parameter`);
  }
  return null;
}

/** Content types a page on another site may send without asking first (CORS "simple" requests). */
const SIMPLE_CONTENT_TYPES = new Set(['text/plain', 'multipart/form-data', 'application/x-www-form-urlencoded']);

/**
 * A request that changes data (an upload) must say what it sends, and not as a type a cross-site form can send:
 * then a browser asks first (a CORS preflight, refused unless the origin is allowed) whether or not it sends an
 * Origin header, so the Origin check is never the only guard.
 * @throws ApiError 415 for a missing or form-like content type.
 */
export function checkWriteRequest(req: IncomingMessage): void {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (!type || SIMPLE_CONTENT_TYPES.has(type)) {
    throw new ApiError(415, 'unsupported_media_type', 'send the file as its own type or as Content-Type: application/octet-stream (not a form or text/plain)');
  }
}

/** Query parameters whose values never reach the log (a token sent the wrong way is still a secret). */
const SECRET_PARAM = /token|key|secret|pass|auth/i;

/** The request target as the log may show it: the path, and each query parameter with secret-looking values hidden. */
export function loggedTarget(rawUrl: string | undefined): string {
  const target = rawUrl ?? '/';
  const q = target.indexOf('?');
  if (q < 0) return target;
  const query = target
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const key = pair.split('=', 1)[0]!;
      return SECRET_PARAM.test(key) ? `${key}=[hidden]` : pair;
    })
    .join('&');
  return `${target.slice(0, q)}?${query}`;
}

// The default fetch for `.url` files and web pages: http(s) only, public addresses only, time and size capped.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import type { Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { CortexError, errorMessage } from '../../errors.js';
import { formatBytes } from './read-safely.js';
import { isPrivateAddress } from './private-address.js';

/** Wall clock for one fetch, redirects included. */
export const FETCH_TIMEOUT_MS = 15_000;
/** Body size accepted (after decompression, so a gzip bomb stops here too). */
export const FETCH_MAX_BYTES = 5 * 2 ** 20;
/** Redirects followed before giving up. */
export const FETCH_MAX_REDIRECTS = 5;
const USER_AGENT = 'Cortex-R/0.1 (document indexer)';

/** What a fetch hands to the extractor. A string body is taken as already decoded text. */
export interface FetchedBody {
  contentType: string;
  body: string | Uint8Array;
}

export interface FetchUrlOptions {
  /** Aborts the fetch (the extractor's per-file deadline). */
  signal?: AbortSignal;
  /** Largest body wanted; a fetch may refuse earlier. */
  maxBytes?: number;
}

/** Fetches one http(s) URL; rejects with a message the user can read. */
export type FetchUrl = (url: string, options?: FetchUrlOptions) => Promise<FetchedBody>;

/** A fetch refused or failed; `url` is the one that failed (after redirects). */
export class FetchError extends CortexError {
  constructor(
    readonly url: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super('fetch', message, options);
  }
}

export interface SafeFetchOptions {
  timeoutMs?: number;
  maxBytes?: number;
  maxRedirects?: number;
  /** Allow loopback, private and link-local addresses (tests, intranet pages). Default false. */
  allowPrivateAddresses?: boolean;
}

/**
 * A FetchUrl that only speaks http(s), refuses hosts resolving to non-public addresses (checked at
 * connect time, so DNS rebinding can't slip past, and again on every redirect), follows at most
 * `maxRedirects` redirects, and stops at `timeoutMs` or `maxBytes` (decompressed). Errors are FetchErrors.
 */
export function createSafeFetch({
  timeoutMs = FETCH_TIMEOUT_MS,
  maxBytes = FETCH_MAX_BYTES,
  maxRedirects = FETCH_MAX_REDIRECTS,
  allowPrivateAddresses = false,
}: SafeFetchOptions = {}): FetchUrl {
  return async (url, options = {}) => {
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    const cap = Math.min(maxBytes, options.maxBytes ?? maxBytes);
    let current = parseWebUrl(url);
    // Bounded by maxRedirects + 1 requests.
    for (let hop = 0; hop <= maxRedirects; hop++) {
      let response: Response;
      try {
        response = await requestOnce(current, { signal, maxBytes: cap, allowPrivateAddresses });
      } catch (err) {
        if (err instanceof FetchError) throw err;
        if (timeout.aborted) throw new FetchError(current.href, `${current.href} did not answer within ${timeoutMs / 1000} s.`, { cause: err });
        if (signal.aborted) throw new FetchError(current.href, `The fetch of ${current.href} was cancelled.`, { cause: err });
        throw new FetchError(current.href, `${current.href} could not be fetched (${errorMessage(err)}).`, { cause: err });
      }
      if (response.kind === 'body') return { contentType: response.contentType, body: response.body };
      current = parseWebUrl(new URL(response.location, current).href);
    }
    throw new FetchError(current.href, `${url} redirected more than ${maxRedirects} times.`);
  };
}

type Response = { kind: 'body'; contentType: string; body: Buffer } | { kind: 'redirect'; location: string };

function parseWebUrl(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new FetchError(url, `"${url.slice(0, 200)}" is not a valid URL.`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new FetchError(url, `Only http and https URLs are fetched, not ${parsed.protocol}.`);
  }
  return parsed;
}

function requestOnce(
  url: URL,
  { signal, maxBytes, allowPrivateAddresses }: { signal: AbortSignal; maxBytes: number; allowPrivateAddresses: boolean },
): Promise<Response> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  // An IP literal skips the lookup below, so it is checked here.
  if (!allowPrivateAddresses && isIP(host) !== 0 && isPrivateAddress(host)) {
    return Promise.reject(new FetchError(url.href, `${url.href} points to a private or local address (${host}); it was not fetched.`));
  }
  return new Promise<Response>((resolve, reject) => {
    const client = url.protocol === 'https:' ? https : http;
    const request = client.request(url, {
      method: 'GET',
      signal,
      agent: false,
      headers: { 'user-agent': USER_AGENT, accept: 'text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.5', 'accept-encoding': 'gzip, deflate, br' },
      ...(allowPrivateAddresses ? {} : { lookup: publicOnlyLookup(url.href) }),
    });
    request.on('error', reject);
    request.on('response', (res) => {
      const status = res.statusCode ?? 0;
      if (status >= 300 && status < 400 && res.headers.location) {
        res.resume();
        resolve({ kind: 'redirect', location: res.headers.location });
        return;
      }
      if (status < 200 || status >= 300) {
        res.resume();
        reject(new FetchError(url.href, `${url.href} answered HTTP ${status}.`));
        return;
      }
      const declared = Number(res.headers['content-length']);
      if (Number.isFinite(declared) && declared > maxBytes) {
        res.destroy();
        reject(new FetchError(url.href, `${url.href} is larger than the ${formatBytes(maxBytes)} limit.`));
        return;
      }
      readBody(res, url.href, maxBytes).then((body) => resolve({ kind: 'body', contentType: String(res.headers['content-type'] ?? ''), body }), reject);
    });
    request.end();
  });
}

function readBody(res: IncomingMessage, href: string, maxBytes: number): Promise<Buffer> {
  const encoding = String(res.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  let stream: Readable = res;
  if (encoding === 'gzip' || encoding === 'x-gzip') stream = res.pipe(createGunzip());
  else if (encoding === 'deflate') stream = res.pipe(createInflate());
  else if (encoding === 'br') stream = res.pipe(createBrotliDecompress());
  else if (encoding !== 'identity' && encoding !== '') {
    res.destroy();
    return Promise.reject(new FetchError(href, `${href} used an unsupported content encoding (${encoding}).`));
  }
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const fail = (err: unknown) => {
      res.destroy();
      stream.destroy();
      reject(err);
    };
    stream.on('data', (chunk: Buffer) => {
      total += chunk.length;
      if (total > maxBytes) fail(new FetchError(href, `${href} is larger than the ${formatBytes(maxBytes)} limit.`));
      else chunks.push(chunk);
    });
    stream.on('end', () => resolve(Buffer.concat(chunks, total)));
    stream.on('error', fail);
    res.on('error', fail);
  });
}

/** A dns lookup that fails when any address of the host is not public. */
function publicOnlyLookup(href: string): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err, '', 0);
      const blocked = addresses.find((a) => isPrivateAddress(a.address));
      if (blocked || addresses.length === 0) {
        const why = new FetchError(href, `${href} resolves to a private or local address (${blocked?.address ?? 'none'}); it was not fetched.`);
        return callback(why as NodeJS.ErrnoException, '', 0);
      }
      if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      const first = addresses[0]!;
      return callback(null, first.address, first.family);
    });
  };
}

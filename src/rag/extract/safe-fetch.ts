// The default fetch for `.url` files and web pages: a thin adapter over the shared SSRF-safe fetch in src/net.
import { isIP } from 'node:net';
import { CortexError } from '../../errors.js';
import { refusalReason } from '../../net/address-policy.js';
import { bareHostname } from '../../net/http-request.js';
import { safeFetch, type HostResolver } from '../../net/safe-fetch.js';
import { WebFetchError } from '../../net/web-fetch-error.js';
import { formatBytes } from './read-safely.js';

/** Wall clock for one fetch, redirects included. */
export const FETCH_TIMEOUT_MS = 15_000;
/** Body size accepted (after decompression, so a gzip bomb stops here too). */
export const FETCH_MAX_BYTES = 5 * 2 ** 20;
/** Redirects followed before giving up. */
export const FETCH_MAX_REDIRECTS = 5;
const REQUEST_HEADERS: Record<string, string> = {
  'user-agent': 'Cortex-R/0.1 (document indexer)',
  accept: 'text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.5',
  'accept-encoding': 'gzip, deflate, br',
};

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
  /**
   * Allow loopback and private addresses (tests, intranet pages). Default false. Link-local and cloud
   * metadata addresses (169.254/16, 100.100.100.200, fe80::/10, fd00:ec2::254) are refused regardless.
   */
  allowPrivateAddresses?: boolean;
  /** Resolves host names; default the system resolver (tests pass a fake). */
  resolveHost?: HostResolver;
}

/**
 * A FetchUrl that only speaks http(s), refuses hosts resolving to non-public addresses (each hop's
 * addresses checked and the connection pinned to them, so DNS rebinding can't slip past), follows at most
 * `maxRedirects` redirects, and stops at `timeoutMs` or `maxBytes` (decompressed). Errors are FetchErrors.
 */
export function createSafeFetch({
  timeoutMs = FETCH_TIMEOUT_MS,
  maxBytes = FETCH_MAX_BYTES,
  maxRedirects = FETCH_MAX_REDIRECTS,
  allowPrivateAddresses = false,
  resolveHost,
}: SafeFetchOptions = {}): FetchUrl {
  const policy = { blockPrivateNetwork: !allowPrivateAddresses };
  return async (url, options = {}) => {
    const start = parseWebUrl(url);
    const cap = Math.min(maxBytes, options.maxBytes ?? maxBytes);
    let got;
    try {
      got = await safeFetch(start.href, {
        policy,
        timeoutMs,
        maxBodyBytes: cap,
        maxRedirects,
        sameSiteRedirectsOnly: true,
        headers: REQUEST_HEADERS,
        // The extractor decides by content type and magic bytes what it can read (PDFs included).
        acceptMediaType: () => true,
        ...(resolveHost ? { resolveHost } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
      });
    } catch (err) {
      throw toFetchError(err, url, { timeoutMs, maxRedirects });
    }
    if (got.truncated) throw new FetchError(got.url, `${got.url} is larger than the ${formatBytes(cap)} limit.`);
    return { contentType: got.contentType, body: got.bytes };
  };
}

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

/** The shared fetch's error, in the indexer's words (kept from before the two fetches were merged). */
function toFetchError(err: unknown, url: string, { timeoutMs, maxRedirects }: { timeoutMs: number; maxRedirects: number }): FetchError {
  if (!(err instanceof WebFetchError)) return new FetchError(url, `${url} could not be fetched (${String(err)}).`, { cause: err });
  const href = err.url ?? url;
  switch (err.code) {
    case 'blocked_address': {
      const address = err.address ?? '';
      const how = isIP(bareHostname(new URL(href))) !== 0 ? 'points to' : 'resolves to';
      const reason = refusalReason(address, { blockPrivateNetwork: true }) ?? 'refused';
      return new FetchError(href, `${href} ${how} a private or local address (${address}): ${reason}; it was not fetched.`, { cause: err });
    }
    case 'timeout':
      return new FetchError(href, `${href} did not answer within ${timeoutMs / 1000} s.`, { cause: err });
    case 'cancelled':
      return new FetchError(href, `The fetch of ${href} was cancelled.`, { cause: err });
    case 'redirect_limit':
      return new FetchError(href, `${url} redirected more than ${maxRedirects} times.`, { cause: err });
    default:
      return new FetchError(href, `${err.message}.`, { cause: err });
  }
}

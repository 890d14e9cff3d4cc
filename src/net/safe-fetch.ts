// Fetches an http(s) URL for the model or the indexer: DNS checked against the address policy on every hop, pinned connects,
// manual redirects, one deadline for the whole fetch and a cap on the body.
import { lookup } from 'node:dns/promises';
import type { IncomingMessage } from 'node:http';
import { STATUS_CODES } from 'node:http';
import { isIP } from 'node:net';
import { refusalReason, type AddressPolicy } from './address-policy.js';
import { hostNameRefusal, TOOL_FETCH_HEADER } from './host-name-policy.js';
import { bareHostname, readCappedBody, sendRequest, type ResolvedAddress } from './http-request.js';
import { WebFetchError } from './web-fetch-error.js';
import { untilAborted } from '../time/until-aborted.js';

/** Resolves a host name to every address it has (dns.lookup with all: true by default; tests pass a fake). */
export type HostResolver = (hostname: string) => Promise<ResolvedAddress[]>;

/** The system resolver: getaddrinfo, as the rest of the machine resolves names. */
export const systemResolver: HostResolver = async (hostname) =>
  (await lookup(hostname, { all: true })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));

/** One fetch (DNS, connects, every redirect, the body) must finish within this, in milliseconds. */
export const DEFAULT_FETCH_TIMEOUT_MS = 10_000;

/** Most bytes of (decoded) body read; past it reading stops. 2 MB holds nearly every article page. */
export const DEFAULT_MAX_BODY_BYTES = 2 * 1024 * 1024;

/** Redirects followed before giving up; browsers allow about 20, but a page that needs more than 5 is broken. */
export const DEFAULT_MAX_REDIRECTS = 5;

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** Sent with every request unless the caller gives its own; some sites (DuckDuckGo among them) answer a bare client with an error page. */
const BROWSER_HEADERS: Record<string, string> = {
  'user-agent': 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36',
  accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,text/plain;q=0.8,*/*;q=0.5',
  'accept-language': 'en-US,en;q=0.9',
  'accept-encoding': 'gzip, deflate, br',
};

/** What {@link safeFetch} needs besides the URL. */
export interface SafeFetchOptions {
  policy: AddressPolicy;
  /** GET by default; POST sends `form` as application/x-www-form-urlencoded. */
  method?: 'GET' | 'POST';
  form?: Record<string, string>;
  resolveHost?: HostResolver;
  timeoutMs?: number;
  maxBodyBytes?: number;
  maxRedirects?: number;
  /**
   * Follow redirects within the same site only (host, or its `www.` twin; http to https): a redirect to another site
   * fails with code redirect_elsewhere naming the address, so a plan that wants it asks for it and the host's data-flow
   * policy judges that request like any other.
   */
  sameSiteRedirectsOnly?: boolean;
  /** Cancels the fetch (it then fails with code cancelled). */
  signal?: AbortSignal;
  /** Request headers replacing the browser-like defaults. */
  headers?: Record<string, string>;
  /** Which media types (lower case, no parameters) are read; default {@link isTextualMediaType}. */
  acceptMediaType?: (mediaType: string) => boolean;
}

/** A fetched body and what is known about it. */
export interface FetchedBody {
  /** The URL the body came from, after redirects. */
  url: string;
  status: number;
  /** The media type without parameters, lower case; '' when the server sent none. */
  mediaType: string;
  /** The charset parameter of Content-Type, if any. */
  charset: string | undefined;
  /** The Content-Type header as sent, parameters included; '' when the server sent none. */
  contentType: string;
  bytes: Buffer;
  /** True when the body was longer than maxBodyBytes and only its start was read. */
  truncated: boolean;
}

/** Media types whose body is text a page reader can use; a missing Content-Type is given the benefit of the doubt. */
export function isTextualMediaType(mediaType: string): boolean {
  return (
    mediaType === '' ||
    mediaType.startsWith('text/') ||
    mediaType === 'application/xhtml+xml' ||
    mediaType === 'application/xml' ||
    mediaType === 'application/json' ||
    mediaType.endsWith('+xml') ||
    mediaType.endsWith('+json')
  );
}

/** "10 s" or "250 ms", for messages. */
export function formatDuration(ms: number): string {
  return ms >= 1000 && ms % 1000 === 0 ? `${ms / 1000} s` : ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${ms} ms`;
}

/** The site a URL belongs to for redirects: its host (with port) without a leading `www.`. */
function siteOf(url: URL): string {
  return url.host.replace(/^www\./, '');
}

/** Parses and checks a URL from the model or a Location header; only absolute http(s) URLs pass. */
export function parseHttpUrl(raw: string, base?: URL): URL {
  let url: URL;
  try {
    url = new URL(raw, base);
  } catch {
    throw new WebFetchError('bad_url', `"${raw}" is not a valid URL; give an absolute URL starting with http:// or https://`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new WebFetchError('bad_url', `"${url.href}" is a ${url.protocol} URL; only http:// and https:// pages can be fetched`);
  }
  return url;
}

/** Resolves `url`'s host and checks every address against the policy; any refused address refuses the host. */
async function resolveChecked(url: URL, policy: AddressPolicy, resolveHost: HostResolver, signal: AbortSignal): Promise<ResolvedAddress[]> {
  const host = bareHostname(url);
  let addresses: ResolvedAddress[];
  if (isIP(host) !== 0) {
    addresses = [{ address: host, family: isIP(host) === 6 ? 6 : 4 }];
  } else {
    // Before the lookup: the resolver would already carry the name (and anything hidden in it) out.
    const nameRefused = hostNameRefusal(host, policy);
    if (nameRefused !== undefined) {
      const hint = policy.blockPrivateNetwork && hostNameRefusal(host, { blockPrivateNetwork: false }) === undefined
        ? ' (private and local addresses are blocked by security.block_private_network)'
        : '';
      throw new WebFetchError('blocked_address', `refused to fetch ${url.href}: ${host} is ${nameRefused}${hint}`, { url: url.href });
    }
    try {
      addresses = await untilAborted(resolveHost(host), signal);
    } catch (err) {
      if (signal.aborted) throw err;
      const code = (err as NodeJS.ErrnoException).code;
      throw new WebFetchError('dns', `cannot resolve the host "${host}"${code ? ` (${code})` : ''}; check the URL`, { cause: err });
    }
    if (addresses.length === 0) throw new WebFetchError('dns', `the host "${host}" has no addresses; check the URL`);
  }
  for (const { address } of addresses) {
    const reason = refusalReason(address, policy);
    if (reason === undefined) continue;
    const via = isIP(host) !== 0 ? `${address} is` : `${host} resolves to ${address}, which is`;
    const hint = policy.blockPrivateNetwork && refusalReason(address, { blockPrivateNetwork: false }) === undefined
      ? ' (private and local addresses are blocked by security.block_private_network)'
      : '';
    throw new WebFetchError('blocked_address', `refused to fetch ${url.href}: ${via} ${reason}${hint}`, { url: url.href, address });
  }
  return addresses;
}

/** A socket or TLS failure, in words the model can act on. */
function networkError(url: URL, err: unknown): WebFetchError {
  const code = (err as NodeJS.ErrnoException | undefined)?.code ?? '';
  const known: Record<string, string> = {
    ECONNREFUSED: 'the connection was refused',
    ECONNRESET: 'the connection was reset',
    EHOSTUNREACH: 'the host is unreachable',
    ENETUNREACH: 'the network is unreachable',
    ENOTFOUND: 'the host was not found',
    EPROTO: 'the TLS handshake failed',
  };
  const what =
    known[code] ??
    (/CERT|SELF_SIGNED|UNABLE_TO_VERIFY/.test(code) ? `its TLS certificate is not valid (${code})` : err instanceof Error ? err.message : String(err));
  return new WebFetchError('network', `could not fetch ${url.href}: ${what}`, { cause: err });
}

/**
 * Fetches `rawUrl` and returns its body, following at most maxRedirects redirects by hand so that every hop's
 * address is resolved and checked again, and connecting only to the checked addresses. The whole fetch (DNS, every
 * hop, the body) shares one deadline. Throws {@link WebFetchError}: bad_url, blocked_address, dns, timeout,
 * redirect_limit, http_status (any non-2xx answer), content_type (not accepted), network or cancelled.
 */
export async function safeFetch(rawUrl: string, options: SafeFetchOptions): Promise<FetchedBody> {
  const {
    policy,
    form,
    resolveHost = systemResolver,
    timeoutMs = DEFAULT_FETCH_TIMEOUT_MS,
    maxBodyBytes = DEFAULT_MAX_BODY_BYTES,
    maxRedirects = DEFAULT_MAX_REDIRECTS,
    acceptMediaType = isTextualMediaType,
  } = options;
  let method = options.method ?? 'GET';
  let body = method === 'POST' && form ? new URLSearchParams(form).toString() : undefined;
  let url = parseHttpUrl(rawUrl);

  const controller = new AbortController();
  const timer = setTimeout(
    () =>
      controller.abort(
        new WebFetchError('timeout', `no complete answer from ${url.href} within ${formatDuration(timeoutMs)} (timed out)`, { url: url.href }),
      ),
    timeoutMs,
  );
  const { signal } = controller;
  const external = options.signal;
  const onCancel = (): void =>
    controller.abort(new WebFetchError('cancelled', `the fetch of ${url.href} was cancelled`, { cause: external?.reason, url: url.href }));
  if (external?.aborted) onCancel();
  else external?.addEventListener('abort', onCancel, { once: true });
  try {
    // Bounded by maxRedirects: every pass either returns, throws, or follows one redirect.
    for (let redirects = 0; ; redirects++) {
      const addresses = await resolveChecked(url, policy, resolveHost, signal);
      const headers = {
        ...(options.headers ?? BROWSER_HEADERS),
        ...(body === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded' }),
        [TOOL_FETCH_HEADER]: '1',
      };
      let res: IncomingMessage;
      try {
        res = await sendRequest({ url, addresses, method, headers, body, signal });
      } catch (err) {
        throw signal.aborted ? (signal.reason as Error) : networkError(url, err);
      }
      const status = res.statusCode ?? 0;
      const location = res.headers.location;
      if (REDIRECT_STATUSES.has(status) && location) {
        res.destroy();
        if (redirects >= maxRedirects) {
          throw new WebFetchError('redirect_limit', `too many redirects: ${rawUrl} still redirected after ${maxRedirects} hops (next: ${location})`);
        }
        const next = parseHttpUrl(location, url);
        if (options.sameSiteRedirectsOnly && siteOf(next) !== siteOf(url)) {
          throw new WebFetchError('redirect_elsewhere', `${url.href} redirects to ${next.href}, another site; to follow it, fetch that address`, { url: next.href });
        }
        url = next;
        // As browsers do: 303, and 301/302 after a POST, continue as a GET without the body.
        if (status === 303 || (method === 'POST' && (status === 301 || status === 302))) {
          method = 'GET';
          body = undefined;
        }
        continue;
      }
      if (status < 200 || status > 299) {
        res.destroy();
        throw new WebFetchError('http_status', `${url.href} answered HTTP ${status} ${STATUS_CODES[status] ?? ''}`.trimEnd());
      }
      const contentType = String(res.headers['content-type'] ?? '');
      const [mediaType = '', ...params] = contentType.split(';').map((p) => p.trim());
      const charset = params.find((p) => /^charset=/i.test(p))?.slice('charset='.length).replace(/^"|"$/g, '');
      if (!acceptMediaType(mediaType.toLowerCase())) {
        res.destroy();
        throw new WebFetchError('content_type', `${url.href} is ${mediaType}, not a web page or text; only HTML and text can be read`);
      }
      try {
        const { bytes, truncated } = await readCappedBody(res, maxBodyBytes, signal);
        return { url: url.href, status, mediaType: mediaType.toLowerCase(), charset, contentType, bytes, truncated };
      } catch (err) {
        throw signal.aborted ? (signal.reason as Error) : networkError(url, err);
      }
    }
  } finally {
    clearTimeout(timer);
    external?.removeEventListener('abort', onCancel);
  }
}

// One HTTP(S) request to an address already checked by the policy, and a size-capped, decompressing body reader.
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import type { Readable } from 'node:stream';
import zlib from 'node:zlib';

/** An address a host name resolved to, as dns.lookup returns it. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** What {@link sendRequest} needs. */
export interface PinnedRequest {
  url: URL;
  /** The checked addresses of url's host; the connection goes to one of these and nowhere else. */
  addresses: readonly ResolvedAddress[];
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  signal: AbortSignal;
}

/** The host of a URL as a socket wants it: IPv6 literals lose their brackets. */
export function bareHostname(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '');
}

/**
 * A `lookup` for net.connect that answers with the already-checked addresses instead of asking DNS again, so a
 * DNS rebind between our check and the connect cannot swap in another address. Node asks with `all: true` when
 * it races IPv4 and IPv6 (autoSelectFamily), with a single answer expected otherwise.
 *
 * It always answers asynchronously, as dns.lookup does: answered synchronously, a connect that fails at once
 * (ENETUNREACH to a route-less network) emits the socket's 'error' before http or tls has attached a listener
 * to it, which crashes the process, and a TLS socket is torn down before its handle exists.
 */
export function pinnedLookup(addresses: readonly ResolvedAddress[]): LookupFunction {
  return (hostname, options, callback) => {
    const wanted = options.family === 4 || options.family === 6 ? addresses.filter((a) => a.family === options.family) : addresses;
    const first = wanted[0];
    setImmediate(() => {
      if (!first) {
        const err: NodeJS.ErrnoException = new Error(`no IPv${String(options.family)} address for ${hostname}`);
        err.code = 'ENOTFOUND';
        callback(err, '');
      } else if (options.all) callback(null, wanted.map((a) => ({ address: a.address, family: a.family })));
      else callback(null, first.address, first.family);
    });
  };
}

/** Sends one request (no redirects followed) and resolves with the response once its headers arrive. */
export function sendRequest({ url, addresses, method, headers, body, signal }: PinnedRequest): Promise<http.IncomingMessage> {
  return new Promise((resolve, reject) => {
    const client = url.protocol === 'https:' ? https : http;
    const hostname = bareHostname(url);
    const req = client.request({
      protocol: url.protocol,
      hostname,
      // SNI and the certificate check name the host the URL names, never the pinned address (and no SNI for an IP).
      ...(url.protocol === 'https:' && isIP(hostname) === 0 ? { servername: hostname } : {}),
      port: url.port === '' ? undefined : Number(url.port),
      path: `${url.pathname}${url.search}`,
      method,
      headers,
      // A fresh connection per request: a pooled socket would carry no memory of which address was checked.
      agent: false,
      lookup: pinnedLookup(addresses),
      signal,
    });
    req.once('response', resolve);
    // `on`, not `once`: a socket can fail twice (a reset after a timeout abort), and a second unheard 'error' crashes.
    req.on('error', reject);
    req.end(body);
  });
}

/** A body read up to a size cap. */
export interface CappedBody {
  bytes: Buffer;
  /** True when the body went on past the cap and reading stopped there. */
  truncated: boolean;
}

/** A stream undoing `encoding`, or undefined for none; throws for encodings we cannot undo, rather than parse garbage. */
function decoderFor(encoding: string): zlib.Gunzip | zlib.Inflate | zlib.BrotliDecompress | undefined {
  switch (encoding) {
    case '':
    case 'identity':
      return undefined;
    case 'gzip':
    case 'x-gzip':
      return zlib.createGunzip();
    case 'deflate':
      return zlib.createInflate();
    case 'br':
      return zlib.createBrotliDecompress();
    default:
      throw new Error(`unsupported content encoding "${encoding}"`);
  }
}

/**
 * Reads `res` (decompressing gzip, deflate or br) until it ends or `maxBytes` of decoded body have arrived; past
 * the cap it stops reading and closes the connection, so neither a huge page nor a compression bomb is taken in.
 */
export function readCappedBody(res: http.IncomingMessage, maxBytes: number, signal: AbortSignal): Promise<CappedBody> {
  return new Promise((resolve, reject) => {
    let decoder: ReturnType<typeof decoderFor>;
    try {
      decoder = decoderFor(String(res.headers['content-encoding'] ?? '').trim().toLowerCase());
    } catch (err) {
      res.destroy();
      reject(err as Error);
      return;
    }
    const stream: Readable = decoder ? res.pipe(decoder) : res;
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const finish = (outcome: () => void): void => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      outcome();
    };
    const stop = (): void => {
      res.destroy();
      decoder?.destroy();
    };
    const onAbort = (): void => {
      stop();
      finish(() => reject(signal.reason instanceof Error ? signal.reason : new Error('aborted')));
    };
    signal.addEventListener('abort', onAbort, { once: true });
    stream.on('data', (chunk: Buffer) => {
      if (settled) return;
      if (size + chunk.length > maxBytes) {
        chunks.push(chunk.subarray(0, maxBytes - size));
        size = maxBytes;
        stop();
        finish(() => resolve({ bytes: Buffer.concat(chunks, size), truncated: true }));
        return;
      }
      chunks.push(chunk);
      size += chunk.length;
    });
    stream.once('end', () => finish(() => resolve({ bytes: Buffer.concat(chunks, size), truncated: false })));
    const onError = (err: Error): void => {
      stop();
      finish(() => reject(err));
    };
    // `on`, not `once`: a later second 'error' with no listener would crash the process.
    stream.on('error', onError);
    if (decoder) res.on('error', onError);
    // A connection that closes before the body ended (and without an error event) must not leave us waiting.
    res.once('close', () => {
      if (!res.complete) onError(new Error('the connection closed before the page was complete'));
    });
  });
}

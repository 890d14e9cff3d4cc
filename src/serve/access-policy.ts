// Who may call the API: loopback by default, a bearer token otherwise, cross-origin pages only when configured.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import { UsageError } from '../errors.js';
import { ApiError } from './api-error.js';
import { isToolFetch } from '../net/host-name-policy.js';

/** What the server was started with. */
export interface AccessPolicy {
  /** Bound to a loopback address: the Host header must then name loopback too (defeats DNS rebinding). */
  loopback: boolean;
  /** CORTEX_API_TOKEN; when set, every /v1 request needs `Authorization: Bearer <token>`. */
  token?: string;
  /** Origins whose pages may call the API (profiles.yaml serve.allowed_origins). */
  allowedOrigins: readonly string[];
}

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/** True for addresses only this machine can reach: localhost, 127.0.0.0/8, ::1. */
export function isLoopbackHost(host: string): boolean {
  if (LOOPBACK_NAMES.has(host)) return true;
  return isIP(host) === 4 && host.startsWith('127.');
}

/** A Host header: a bracketed IPv6 address or a name/IPv4 address, then at most a port; anything else is no host. */
const HOST_HEADER = /^(\[[0-9a-f:.]+\]|[^[\]:\s]+)(?::\d{1,5})?$/i;

/** The host part of a Host header, lower-cased; null when the header is not exactly a host and an optional port. */
export function hostName(hostHeader: string): string | null {
  const match = HOST_HEADER.exec(hostHeader);
  return match ? match[1]!.toLowerCase() : null;
}

/** The key a client's connections are counted under: its address, or the first 64 bits (the network) of an IPv6 one. */
export function clientKey(address = ''): string {
  if (!address.includes(':') || address.startsWith('::ffff:')) return address;
  const [head = '', tail] = address.toLowerCase().split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = tail === undefined ? left : [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right];
  return `${groups.slice(0, 4).map((g) => g.replace(/^0+(?=.)/, '')).join(':')}::/64`;
}

/** Shortest API token accepted: 16 random characters is 64 bits or more, past guessing over a network. */
export const MIN_TOKEN_CHARS = 16;

/** @throws UsageError when `token` is too short to stand between the network and the API. */
export function checkApiToken(token: string): void {
  if (token.length < MIN_TOKEN_CHARS) {
    throw new UsageError(`CORTEX_API_TOKEN is ${token.length} characters; use at least ${MIN_TOKEN_CHARS} random ones (e.g. the output of \`openssl rand -hex 16\`)`);
  }
}

function sameToken(given: string, expected: string): boolean {
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/**
 * Checks one request and returns the CORS headers its answer needs (none for same-origin and non-browser
 * callers). `needsToken` is false for the health check and the page's static files, which hold no data.
 * @throws ApiError 403 (a fetch by our own web tools), 421 (a loopback server reached under another host name), 403 (origin not allowed),
 * 401 (token missing or wrong).
 */
export function checkAccess(req: IncomingMessage, policy: AccessPolicy, { needsToken }: { needsToken: boolean }): Record<string, string> {
  // Our own web tools never reach this API, whatever the network policy lets them fetch.
  if (isToolFetch(req.headers)) throw new ApiError(403, 'tool_fetch_refused', "Cortex-R's web tools may not call its own API");
  const host = req.headers.host ?? '';
  const name = hostName(host);
  if (policy.loopback && (name === null || !isLoopbackHost(name))) {
    throw new ApiError(421, 'wrong_host', `this server answers only to loopback host names, not "${host}"`);
  }
  const cors: Record<string, string> = {};
  const origin = req.headers.origin;
  if (origin !== undefined && origin !== `http://${host}`) {
    if (!policy.allowedOrigins.includes(origin)) {
      throw new ApiError(403, 'origin_refused', `requests from ${origin} are refused; add it to serve.allowed_origins in the profile to allow them`);
    }
    Object.assign(cors, { 'access-control-allow-origin': origin, vary: 'Origin' });
  }
  if (needsToken && policy.token !== undefined) {
    const header = req.headers.authorization ?? '';
    const given = header.startsWith('Bearer ') ? header.slice('Bearer '.length).trim() : '';
    if (!given || !sameToken(given, policy.token)) {
      throw new ApiError(401, 'unauthorized', 'send the API token as Authorization: Bearer <CORTEX_API_TOKEN>', { 'www-authenticate': 'Bearer', ...cors });
    }
  }
  return cors;
}

/** Headers answering a CORS preflight from an allowed origin. */
export const PREFLIGHT_HEADERS = {
  'access-control-allow-methods': 'GET, POST, OPTIONS',
  'access-control-allow-headers': 'authorization, content-type, accept',
  'access-control-max-age': '600',
};

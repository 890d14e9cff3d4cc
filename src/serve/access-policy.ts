// Who may call the API: loopback by default, a bearer token otherwise, cross-origin pages only when configured.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
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

function hostName(hostHeader: string): string {
  return hostHeader.startsWith('[') ? hostHeader.slice(0, hostHeader.indexOf(']') + 1) : hostHeader.replace(/:\d+$/, '');
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
  if (policy.loopback && !isLoopbackHost(hostName(host))) {
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

// Why a call to a remote server failed, as far as deciding whether to reconnect and send it again.
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import type { ServerSpec } from '../config/server-spec.js';
import { McpError, errorMessage } from '../errors.js';

/**
 * True when a Streamable HTTP server no longer knows our session (it restarted, or expired the session): 404 as
 * the spec says, or the 400 "No valid session ID" that the SDK's own example servers send. The server refused the
 * request before running it, so a new session may send it again whatever the tool does.
 */
export function isSessionLost(err: unknown): boolean {
  if (!(err instanceof StreamableHTTPError)) return false;
  if (err.code === 404) return true;
  return err.code === 400 && /session/i.test(err.message);
}

/** Socket errors under a request that was sent: the server may or may not have run it. */
const BROKEN_SOCKET_CODES = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE']);

/** True when the request was refused at connect, so never reached the server (it is down or restarting). */
export function neverReachedServer(err: unknown): boolean {
  return causeCodes(err).includes('ECONNREFUSED');
}

/**
 * True when the connection closed under the call (the server process went away, or a kept-alive socket of a
 * restarted server was found closed): it may or may not have run on the server.
 */
export function isConnectionClosed(err: unknown): boolean {
  return (err as { code?: unknown })?.code === ErrorCode.ConnectionClosed || isBrokenSocket(err);
}

/** True when an HTTP request failed on a socket the server closed (e.g. a kept-alive one of a server since restarted). */
export function isBrokenSocket(err: unknown): boolean {
  return causeCodes(err).some((c) => BROKEN_SOCKET_CODES.has(c));
}

/** Codes along the cause chain: fetch wraps the socket error as TypeError("fetch failed", {cause: {code}}). */
function causeCodes(err: unknown): string[] {
  const codes: string[] = [];
  let cause: unknown = err;
  for (let depth = 0; depth < 4 && cause instanceof Error; depth++) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === 'string') codes.push(code);
    cause = cause.cause;
  }
  return codes;
}

/** True when the server refused us for want of credentials (401/403), or our OAuth provider said sign-in is needed. */
export function isAuthFailure(err: unknown): boolean {
  if (err instanceof McpError || err instanceof UnauthorizedError) return err instanceof UnauthorizedError || /sign in|401 Unauthorized/.test(err.message);
  // The SDK v2 client (protocol 2026-07-28) has its own UnauthorizedError class.
  if (err instanceof Error && err.constructor.name === 'UnauthorizedError') return true;
  const code = (err as { code?: unknown })?.code;
  if (isModernHttpError(err)) return err.status === 401 || err.status === 403;
  return (err instanceof StreamableHTTPError && (code === 401 || code === 403)) || (/^SSE error/.test(errorMessage(err)) && (code === 401 || code === 403));
}

/** The SDK v2 client's HTTP failure (`SdkHttpError`, named so: its class is in a bundle loaded only for 2026-07-28), with its status. */
function isModernHttpError(err: unknown): err is Error & { status: number } {
  return err instanceof Error && err.name === 'SdkHttpError' && typeof (err as { status?: unknown }).status === 'number';
}

/** The one line a person reads for an auth failure: sign in, or give a token; undefined when `err` is not one. */
export function authMessage(spec: ServerSpec, err: unknown): McpError | undefined {
  if (!isAuthFailure(err)) return undefined;
  if (err instanceof McpError) return err;
  const code = isModernHttpError(err) ? err.status : (err as { code?: unknown }).code;
  const hasToken = hasAuthorizationHeader(spec);
  const why = code === 403 ? '403 Forbidden' : '401 Unauthorized';
  const how = hasToken
    ? 'the token in its entry\'s headers was refused; replace it'
    : `sign in with \`cortex servers login ${spec.id}\``;
  return new McpError(spec.id, `answered ${why}: ${how}`, { cause: err });
}

/** True when the entry gives its own Authorization header (a token): the user's choice, used instead of OAuth. */
export function hasAuthorizationHeader(spec: Pick<ServerSpec, 'headers'>): boolean {
  return Object.keys(spec.headers ?? {}).some((h) => h.toLowerCase() === 'authorization');
}

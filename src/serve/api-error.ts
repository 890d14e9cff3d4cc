// Errors of the HTTP API: a status, a stable code and a message, sent as {error: {code, message}}.
import { CortexError, errorMessage } from '../errors.js';

/** A request the API refuses, with the HTTP status and any headers (e.g. Retry-After) to send. */
export class ApiError extends CortexError {
  constructor(
    readonly status: number,
    code: string,
    message: string,
    readonly headers: Record<string, string> = {},
    options?: { cause?: unknown },
  ) {
    super(code, message, options);
  }
}

/** Status of each typed error the Runtime or the stores may throw; anything else is a 500. */
const STATUS_BY_CODE: Record<string, number> = {
  usage: 400,
  session_busy: 409,
  session_not_found: 404,
  llm_unavailable: 503,
  sandbox_unavailable: 503,
  llm_request: 502,
  mcp: 502,
  config: 500,
  index_locked: 503,
  embedding: 502,
};

/**
 * The HTTP form of any error: status, `{error: {code, message}}` and headers. An error that is not ours to explain
 * (a failed system call) says only that it happened: its message may hold paths on this machine, so it goes to
 * the server's log (see internalDetail) and never to the client.
 */
export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof CortexError) return new ApiError(STATUS_BY_CODE[err.code] ?? 500, err.code, err.message, {}, { cause: err });
  return new ApiError(500, 'internal', 'internal error (the server log has the details)', {}, { cause: err });
}

/** For the server's log: what an 'internal' error hides from the client, else null. */
export function internalDetail(error: ApiError): string | null {
  return error.code === 'internal' ? errorMessage(error.cause) : null;
}

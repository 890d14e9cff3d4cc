// The one typed error of the websearch server's network and parse code; the tools turn it into an isError result.
import { CortexError } from '../../src/errors.js';

/** Why a download or search failed; stable, so tests and callers can branch on it. */
export type WebFetchErrorCode =
  | 'bad_url'
  | 'blocked_address'
  | 'dns'
  | 'timeout'
  | 'redirect_limit'
  | 'http_status'
  | 'content_type'
  | 'network'
  | 'parse';

/** A failed fetch or parse whose message is written for the model: what failed, on which URL, and what to try. */
export class WebFetchError extends CortexError {
  constructor(
    override readonly code: WebFetchErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(code, message, options);
  }
}

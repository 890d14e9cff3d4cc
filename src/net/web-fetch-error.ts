// The one typed error of the shared safe fetch (and the websearch server's parse code); callers turn it into their own message.
import { CortexError } from '../errors.js';

/** Why a download or search failed; stable, so tests and callers can branch on it. */
export type WebFetchErrorCode =
  | 'bad_url'
  | 'blocked_address'
  | 'dns'
  | 'timeout'
  | 'redirect_limit'
  /** The page redirects to another site, which the caller must fetch itself (so the host judges that request). */
  | 'redirect_elsewhere'
  | 'http_status'
  | 'content_type'
  | 'network'
  | 'cancelled'
  | 'parse';

/** A failed fetch or parse whose message is written for the model: what failed, on which URL, and what to try. */
export class WebFetchError extends CortexError {
  constructor(
    override readonly code: WebFetchErrorCode,
    message: string,
    options?: { cause?: unknown; url?: string; address?: string },
  ) {
    super(code, message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.url = options?.url;
    this.address = options?.address;
  }

  /** The URL being fetched when it failed (after redirects), where known: set for blocked_address, timeout and cancelled. */
  readonly url: string | undefined;
  /** For blocked_address: the refused IP address. */
  readonly address: string | undefined;
}

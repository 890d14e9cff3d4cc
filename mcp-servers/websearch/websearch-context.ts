// What both websearch tools share: fetch settings, the parse runner, the two rate limiters and their messages.
import { SlidingWindowRateLimiter } from './rate-limiter.js';
import type { ParseRunner } from './parse-in-worker.js';
import type { SafeFetchOptions } from '../../src/net/safe-fetch.js';

/**
 * Longest text returned to the model, in characters (the original server's 8,000). Here, not in page-text.ts, so the
 * server's main thread does not load the HTML parser just for this number.
 */
export const DEFAULT_MAX_PAGE_CHARS = 8_000;

/** Built once per server by buildWebsearchServer and handed to each tool. */
export interface WebsearchContext {
  /** The DuckDuckGo HTML endpoint (or a stand-in speaking its format). */
  searchUrl: string;
  /** Policy, resolver, deadline, size cap and redirect limit for every request. */
  fetch: SafeFetchOptions;
  parse: ParseRunner;
  searchLimiter: SlidingWindowRateLimiter;
  fetchLimiter: SlidingWindowRateLimiter;
  /** Longest page text returned, in characters. */
  maxPageChars: number;
  /** The body size cap, for the note on a page cut there. */
  maxBodyBytes: number;
}

/**
 * Takes a slot of `limiter` for one call and returns undefined, or, over the limit, the isError message: the limit and
 * when a retry will be allowed (whole seconds, rounded up).
 */
export function takeRateSlot(limiter: SlidingWindowRateLimiter, what: string): string | undefined {
  const decision = limiter.tryAcquire();
  if (decision.allowed) return undefined;
  const seconds = Math.ceil(decision.retryAfterMs / 1000);
  return `rate limit reached: at most ${limiter.limit} ${what} per ${limiter.windowMs / 1000} s; try again in ${seconds} s`;
}

// A sliding-window rate limiter: at most `limit` events in any `windowMs`, with an injectable clock for tests.

/** Options for {@link SlidingWindowRateLimiter}. */
export interface RateLimiterOptions {
  /** Most events allowed in any window. */
  limit: number;
  /** Length of the window in milliseconds. Default one minute. */
  windowMs?: number;
  /** Clock in milliseconds; default Date.now. Tests pass a fake to move time without sleeping. */
  now?: () => number;
}

/** What {@link SlidingWindowRateLimiter.tryAcquire} decided. */
export type RateDecision = { allowed: true } | { allowed: false; retryAfterMs: number };

/** One minute, the window of the original server's "N requests a minute" limits. */
export const RATE_WINDOW_MS = 60_000;

/**
 * Counts events in a window that slides with the clock (not fixed minute buckets, which would allow twice the
 * limit across a bucket edge). Never sleeps: an event over the limit is refused with the time until a slot frees.
 */
export class SlidingWindowRateLimiter {
  readonly limit: number;
  readonly windowMs: number;
  private readonly now: () => number;
  /** Times of the allowed events still inside the window, oldest first; never longer than `limit`. */
  private readonly times: number[] = [];

  constructor({ limit, windowMs = RATE_WINDOW_MS, now = Date.now }: RateLimiterOptions) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`rate limit must be a whole number of at least 1, got ${limit}`);
    this.limit = limit;
    this.windowMs = windowMs;
    this.now = now;
  }

  /** Records an event and allows it, or refuses it (recording nothing) with how long until one would be allowed. */
  tryAcquire(): RateDecision {
    const now = this.now();
    // Bounded by `limit`: the array never holds more than that many times.
    while (this.times.length > 0 && (this.times[0] ?? 0) <= now - this.windowMs) this.times.shift();
    if (this.times.length < this.limit) {
      this.times.push(now);
      return { allowed: true };
    }
    const oldest = this.times[0] ?? now;
    return { allowed: false, retryAfterMs: Math.max(1, oldest + this.windowMs - now) };
  }
}

// The sliding-window rate limiter, driven by a fake clock (no sleeping).
import { describe, expect, it } from 'vitest';
import { SlidingWindowRateLimiter } from '../../mcp-servers/websearch/rate-limiter.js';

function fakeClock(start = 1_000_000): { now: () => number; advance: (ms: number) => void } {
  let t = start;
  return { now: () => t, advance: (ms) => (t += ms) };
}

describe('SlidingWindowRateLimiter', () => {
  it('allows a burst up to the limit, refuses the next, and says when a slot frees', () => {
    const clock = fakeClock();
    const limiter = new SlidingWindowRateLimiter({ limit: 30, now: clock.now });
    for (let i = 0; i < 30; i++) expect(limiter.tryAcquire()).toEqual({ allowed: true });
    expect(limiter.tryAcquire()).toEqual({ allowed: false, retryAfterMs: 60_000 });
    clock.advance(45_000);
    expect(limiter.tryAcquire()).toEqual({ allowed: false, retryAfterMs: 15_000 });
  });

  it('slides: a slot frees exactly one window after the event that took it, not at a minute boundary', () => {
    const clock = fakeClock();
    const limiter = new SlidingWindowRateLimiter({ limit: 2, now: clock.now });
    expect(limiter.tryAcquire().allowed).toBe(true);
    clock.advance(30_000);
    expect(limiter.tryAcquire().allowed).toBe(true);
    clock.advance(29_999);
    expect(limiter.tryAcquire()).toEqual({ allowed: false, retryAfterMs: 1 });
    clock.advance(1);
    expect(limiter.tryAcquire().allowed).toBe(true);
    // The second event (at 30 s) is still inside the window, and so is the third.
    expect(limiter.tryAcquire()).toEqual({ allowed: false, retryAfterMs: 30_000 });
  });

  it('does not count refused attempts against the limit', () => {
    const clock = fakeClock();
    const limiter = new SlidingWindowRateLimiter({ limit: 1, windowMs: 1_000, now: clock.now });
    expect(limiter.tryAcquire().allowed).toBe(true);
    for (let i = 0; i < 5; i++) expect(limiter.tryAcquire().allowed).toBe(false);
    clock.advance(1_000);
    expect(limiter.tryAcquire().allowed).toBe(true);
  });

  it('rejects a limit below 1', () => {
    expect(() => new SlidingWindowRateLimiter({ limit: 0 })).toThrow(RangeError);
  });
});

import { describe, expect, it } from 'vitest';
import { resolveLimits, TOOL_CALL_TIMEOUT_MS } from '../../src/sandbox/limits.js';
import { SANDBOX_LIMITS } from '../../src/config/limits.js';

/** Each limit's default, as config/limits.ts states it. */
const DEFAULT_SANDBOX_LIMITS = Object.fromEntries(Object.entries(SANDBOX_LIMITS).map(([key, limit]) => [key, limit.default]));

describe('resolveLimits', () => {
  it('fills in the defaults', () => {
    expect(resolveLimits()).toEqual({ ...DEFAULT_SANDBOX_LIMITS, toolTimeoutMs: TOOL_CALL_TIMEOUT_MS });
  });

  it('keeps values inside their ranges', () => {
    expect(resolveLimits({ maxToolCalls: 3, timeoutMs: 1_500, memoryMb: 32, maxOutputChars: 500, toolTimeoutMs: 2_000 })).toEqual({
      maxToolCalls: 3, timeoutMs: 1_500, memoryMb: 32, maxOutputChars: 500, toolTimeoutMs: 2_000,
    });
  });

  it('clamps values outside their ranges', () => {
    expect(resolveLimits({ maxToolCalls: -1, timeoutMs: 10, memoryMb: 1, maxOutputChars: 1e12 })).toMatchObject({
      maxToolCalls: 0, timeoutMs: 100, memoryMb: 8, maxOutputChars: 1_000_000,
    });
  });

  it('never lets an infinite or NaN limit switch a limit off', () => {
    expect(resolveLimits({ maxToolCalls: Infinity, timeoutMs: Number.NaN })).toMatchObject({
      maxToolCalls: DEFAULT_SANDBOX_LIMITS.maxToolCalls,
      timeoutMs: DEFAULT_SANDBOX_LIMITS.timeoutMs,
    });
  });
});

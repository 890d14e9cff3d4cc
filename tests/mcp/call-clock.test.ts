// One MCP call's clock: its wait, restarted by progress, capped in all, and stopped while the person is asked.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CallClock, ClockExpired, MAX_PAUSED_PER_CALL_MS } from '../../src/mcp/call-clock.js';

const WAIT_MS = 1_000;
const TOTAL_MS = 5_000;

afterEach(() => {
  vi.useRealTimers();
});

function clock(parent?: AbortSignal) {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  return new CallClock(WAIT_MS, TOTAL_MS, parent);
}

describe('CallClock', () => {
  it('ends a silent call after its wait, with the SDK\'s own "Request timed out"', () => {
    const c = clock();
    vi.advanceTimersByTime(WAIT_MS - 1);
    expect(c.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(c.signal.reason).toBeInstanceOf(ClockExpired);
    expect(String(c.signal.reason.message)).toMatch(/Request timed out/);
  });

  it('stands still while paused and resumes with the time that was left', () => {
    const c = clock();
    vi.advanceTimersByTime(WAIT_MS / 2);
    const resume = c.pause();
    const resumeAlso = c.pause();
    vi.advanceTimersByTime(100 * WAIT_MS);
    resume();
    vi.advanceTimersByTime(100 * WAIT_MS);
    expect(c.signal.aborted).toBe(false);
    resumeAlso();
    vi.advanceTimersByTime(WAIT_MS / 2 - 1);
    expect(c.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(c.signal.aborted).toBe(true);
  });

  it('restarts the wait on progress, and ends the call on progress after its longest running time, not counting pauses', () => {
    const c = clock();
    for (let t = 0; t < TOTAL_MS - WAIT_MS; t += WAIT_MS / 2) {
      vi.advanceTimersByTime(WAIT_MS / 2);
      c.progress();
    }
    const resume = c.pause();
    vi.advanceTimersByTime(10 * TOTAL_MS);
    resume();
    c.progress();
    expect(c.signal.aborted).toBe(false);
    vi.advanceTimersByTime(WAIT_MS / 2);
    c.progress();
    expect(c.signal.aborted).toBe(false);
    vi.advanceTimersByTime(WAIT_MS / 2);
    c.progress();
    expect(c.signal.reason).toMatchObject({ message: expect.stringMatching(/Maximum total timeout exceeded/) });
  });

  it('runs again once a call has stood still for MAX_PAUSED_PER_CALL_MS in all, answered or not', () => {
    const c = clock();
    const resume = c.pause();
    vi.advanceTimersByTime(MAX_PAUSED_PER_CALL_MS - 1);
    expect(c.signal.aborted).toBe(false);
    vi.advanceTimersByTime(WAIT_MS + 1);
    expect(c.signal.aborted).toBe(true);
    resume();
  });

  it('stops standing still once its pauses add up to MAX_PAUSED_PER_CALL_MS', () => {
    const c = clock();
    const resume = c.pause();
    vi.advanceTimersByTime(MAX_PAUSED_PER_CALL_MS / 2);
    resume();
    const again = c.pause();
    vi.advanceTimersByTime(MAX_PAUSED_PER_CALL_MS / 2);
    again();
    c.pause();
    vi.advanceTimersByTime(WAIT_MS);
    expect(c.signal.aborted).toBe(true);
  });

  it("aborts with the parent's reason when the parent aborts", () => {
    const parent = new AbortController();
    const c = clock(parent.signal);
    parent.abort(new Error('question cancelled'));
    expect(c.signal.reason).toMatchObject({ message: 'question cancelled' });
    c.dispose();
  });
});

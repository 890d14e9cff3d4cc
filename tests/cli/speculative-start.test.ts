// Our own servers start while a slow perception waits, and never for a fast one (fake timers: no wall clock).
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AgentEvent } from '../../src/agent/types.js';
import { speculativeStart } from '../../src/cli/speculative-start.js';

const AFTER_MS = 300;
const start = (stage: 'perception' | 'decision'): AgentEvent => ({ type: 'llm_start', stage, step: 1, model: 'm', promptTokens: 1 });
const end = (stage: 'perception' | 'decision'): AgentEvent => ({ type: 'llm_end', stage, step: 1, model: 'm', promptTokens: 1, completionTokens: 1, latencyMs: 1 });

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('speculativeStart', () => {
  it('starts the servers once when perception is still waiting after the delay, and forwards every event', () => {
    const begin = vi.fn();
    const seen: AgentEvent[] = [];
    const early = speculativeStart(begin, (e) => seen.push(e), AFTER_MS);
    early.onEvent(start('perception'));
    vi.advanceTimersByTime(AFTER_MS - 1);
    expect(begin).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(begin).toHaveBeenCalledTimes(1);
    early.onEvent(end('perception'));
    early.onEvent(start('perception'));
    vi.advanceTimersByTime(10 * AFTER_MS);
    expect(begin).toHaveBeenCalledTimes(1);
    expect(seen.map((e) => e.type)).toEqual(['llm_start', 'llm_end', 'llm_start']);
  });

  it('starts nothing when perception answers first, or for a slow plan', () => {
    const begin = vi.fn();
    const early = speculativeStart(begin, undefined, AFTER_MS);
    early.onEvent(start('perception'));
    vi.advanceTimersByTime(AFTER_MS / 2);
    early.onEvent(end('perception'));
    early.onEvent(start('decision'));
    vi.advanceTimersByTime(10 * AFTER_MS);
    expect(begin).not.toHaveBeenCalled();
  });

  it('starts nothing once the question has ended', () => {
    const begin = vi.fn();
    const early = speculativeStart(begin, undefined, AFTER_MS);
    early.onEvent(start('perception'));
    early.stop();
    vi.advanceTimersByTime(10 * AFTER_MS);
    expect(begin).not.toHaveBeenCalled();
  });
});

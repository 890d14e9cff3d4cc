// The one pausable deadline: its wait, restarts, pauses shared by questions asked together, caps, and parent.
import { describe, expect, it } from 'vitest';
import { DeadlineExpired, PausableDeadline, type PausableDeadlineOptions } from '../../src/time/pausable-deadline.js';
import { ManualClock } from '../helpers/manual-clock.js';

const WAIT_MS = 1_000;

/** A deadline of WAIT_MS on a clock the test drives, recording each stop and restart. */
function deadline(options: Partial<PausableDeadlineOptions> = {}) {
  const clock = new ManualClock();
  const events: string[] = [];
  const d = new PausableDeadline({
    ms: WAIT_MS,
    clock,
    onPause: () => events.push(`pause@${clock.now()}`),
    onResume: (pausedMs) => events.push(`resume@${clock.now()} after ${pausedMs}`),
    ...options,
  });
  return { d, clock, events };
}

describe('PausableDeadline', () => {
  it('aborts after its wait with a DeadlineExpired naming it', () => {
    const { d, clock } = deadline();
    clock.advance(WAIT_MS - 1);
    expect(d.signal.aborted).toBe(false);
    expect(d.remainingMs()).toBe(1);
    clock.advance(1);
    expect(d.signal.reason).toBeInstanceOf(DeadlineExpired);
    expect(d.signal.reason).toMatchObject({ code: 'deadline_expired', expiry: 'wait', message: `timed out after ${WAIT_MS} ms` });
    expect(d.remainingMs()).toBe(0);
    expect(clock.pending).toBe(0);
  });

  it('aborts with the reason it is given', () => {
    const { d, clock } = deadline({ reason: (expiry) => new Error(`ran out (${expiry})`) });
    clock.advance(WAIT_MS);
    expect(d.signal.reason).toMatchObject({ message: 'ran out (wait)' });
  });

  it('starts the wait again on extend(), and arm(ms) sets what is left', () => {
    const { d, clock } = deadline();
    clock.advance(WAIT_MS - 1);
    d.extend();
    clock.advance(WAIT_MS - 1);
    expect(d.signal.aborted).toBe(false);
    d.arm(10);
    clock.advance(9);
    expect(d.signal.aborted).toBe(false);
    clock.advance(1);
    expect(d.signal.aborted).toBe(true);
  });

  it('ends on extend() once it has run its longest in all, pauses not counted', () => {
    const { d, clock } = deadline({ maxTotalMs: 3 * WAIT_MS });
    for (let i = 0; i < 5; i++) {
      clock.advance(WAIT_MS / 2);
      d.extend();
    }
    const resume = d.pause();
    clock.advance(100 * WAIT_MS);
    resume();
    d.extend();
    expect(d.signal.aborted).toBe(false);
    clock.advance(WAIT_MS / 2);
    d.extend();
    expect(d.signal.reason).toMatchObject({ expiry: 'total', ms: 3 * WAIT_MS });
  });

  it('stands still while paused and runs on with the time that was left', () => {
    const { d, clock, events } = deadline();
    clock.advance(300);
    const resume = d.pause();
    expect(d.remainingMs()).toBe(WAIT_MS - 300);
    clock.advance(50 * WAIT_MS);
    expect(d.signal.aborted).toBe(false);
    resume();
    clock.advance(WAIT_MS - 301);
    expect(d.signal.aborted).toBe(false);
    clock.advance(1);
    expect(d.signal.aborted).toBe(true);
    expect(events).toEqual(['pause@300', `resume@${300 + 50 * WAIT_MS} after ${50 * WAIT_MS}`]);
  });

  it('shares one stop between questions asked together, ending when the last is answered', () => {
    const { d, clock, events } = deadline();
    const first = d.pause();
    const second = d.pause();
    clock.advance(5 * WAIT_MS);
    first();
    first();
    clock.advance(5 * WAIT_MS);
    expect(d.signal.aborted).toBe(false);
    second();
    expect(events).toEqual(['pause@0', `resume@${10 * WAIT_MS} after ${10 * WAIT_MS}`]);
    expect(d.runningMs()).toBe(0);
  });

  it('keeps the wait restarted by extend() during a pause for when it runs again', () => {
    const { d, clock } = deadline();
    clock.advance(WAIT_MS - 10);
    const resume = d.pause();
    d.extend();
    resume();
    clock.advance(WAIT_MS - 1);
    expect(d.signal.aborted).toBe(false);
  });

  it('runs again after maxPauseMs while still held, and stops again only once every hold is released', () => {
    const { d, clock, events } = deadline({ maxPauseMs: 10 * WAIT_MS });
    const held = d.pause();
    clock.advance(10 * WAIT_MS);
    expect(events).toEqual(['pause@0', `resume@${10 * WAIT_MS} after ${10 * WAIT_MS}`]);
    const alongside = d.pause();
    alongside();
    clock.advance(WAIT_MS / 2);
    held();
    const next = d.pause();
    clock.advance(5 * WAIT_MS);
    next();
    expect(events).toHaveLength(4);
    clock.advance(WAIT_MS / 2 - 1);
    expect(d.signal.aborted).toBe(false);
    clock.advance(1);
    expect(d.signal.aborted).toBe(true);
  });

  it('stops standing still once its pauses add up to maxPausedMs, and pause() then does nothing', () => {
    const { d, clock, events } = deadline({ maxPausedMs: 4 * WAIT_MS });
    const first = d.pause();
    clock.advance(3 * WAIT_MS);
    first();
    d.pause();
    clock.advance(WAIT_MS);
    expect(events).toHaveLength(4);
    d.pause();
    expect(events).toHaveLength(4);
    clock.advance(WAIT_MS);
    expect(d.signal.aborted).toBe(true);
  });

  it("aborts with the parent's reason, at once when the parent already has", () => {
    const parent = new AbortController();
    const { d } = deadline({ parent: parent.signal });
    parent.abort(new Error('question cancelled'));
    expect(d.signal.reason).toMatchObject({ message: 'question cancelled' });
    const late = deadline({ parent: parent.signal });
    expect(late.d.signal.reason).toMatchObject({ message: 'question cancelled' });
    expect(late.clock.pending).toBe(0);
  });

  it('once disposed, fires nothing, ignores its parent and cannot be paused', () => {
    const parent = new AbortController();
    const { d, clock, events } = deadline({ parent: parent.signal });
    const resume = d.pause();
    d.dispose();
    resume();
    d.pause();
    parent.abort();
    clock.advance(10 * WAIT_MS);
    expect(d.signal.aborted).toBe(false);
    expect(events).toEqual(['pause@0']);
    expect(clock.pending).toBe(0);
  });

  it('cannot be paused once it has run out', () => {
    const { d, clock, events } = deadline();
    clock.advance(WAIT_MS);
    d.pause()();
    expect(events).toEqual([]);
  });
});

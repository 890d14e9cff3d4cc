// LiveQuestions: a running question's events replayed to late viewers; only Stop or no viewer for the grace period cancels.
import { describe, expect, it } from 'vitest';
import { LiveQuestions, MAX_REPLAY_BYTES, REPLAY_GAP_EVENT, type StartTimer, type Viewer } from '../../src/serve/live-questions.js';

/** A viewer that records what it was sent; `open: false` makes it refuse frames like a closed stream. */
class RecordingViewer implements Viewer {
  readonly frames: Array<[string, unknown]> = [];
  ended = false;
  open = true;
  send(event: string, data: unknown): boolean {
    if (!this.open) return false;
    this.frames.push([event, data]);
    return true;
  }
  end(): void {
    this.ended = true;
  }
  get events(): string[] {
    return this.frames.map(([event]) => event);
  }
}

/** Timers the test fires itself: no waiting. */
class ManualTimers {
  readonly pending: Array<{ fire: () => void; ms: number; cancelled: boolean }> = [];
  readonly start: StartTimer = (fire, ms) => {
    const timer = { fire, ms, cancelled: false };
    this.pending.push(timer);
    return () => (timer.cancelled = true);
  };
  /** The timers started and not cancelled. */
  get active() {
    return this.pending.filter((t) => !t.cancelled);
  }
}

describe('LiveQuestions', () => {
  it('sends a viewer who joins late every event so far, then the live ones, like the first viewer', () => {
    const live = new LiveQuestions().start('1718000000-a1b2c3', 'what is 2 + 2?')!;
    const first = new RecordingViewer();
    live.join(first);
    live.publish('perceiving', { step: 1 });
    live.publish('planning', { step: 1 });
    const late = new RecordingViewer();
    live.join(late);
    live.publish('result', { answer: '4' });
    expect(late.frames).toEqual(first.frames);
    expect(late.events).toEqual(['perceiving', 'planning', 'result']);
    live.end();
    expect([first.ended, late.ended]).toEqual([true, true]);
  });

  it('keeps a question running when one of two viewers leaves, and cancels it only after the last has been gone for the grace period', () => {
    const timers = new ManualTimers();
    const questions = new LiveQuestions({ graceMs: 60_000, startTimer: timers.start });
    const live = questions.start('1718000000-a1b2c3', 'q')!;
    const leaveA = live.join(new RecordingViewer());
    const leaveB = live.join(new RecordingViewer());
    leaveA();
    expect(timers.active).toEqual([]);
    leaveB();
    expect(timers.active.map((t) => t.ms)).toEqual([60_000]);
    expect(live.signal.aborted).toBe(false);
    // A reload within the grace period: the viewer is back and the timer is off.
    const leaveC = live.join(new RecordingViewer());
    expect(timers.active).toEqual([]);
    leaveC();
    timers.active[0]!.fire();
    expect(live.signal.aborted).toBe(true);
  });

  it('counts a viewer whose stream was cut as gone', () => {
    const timers = new ManualTimers();
    const live = new LiveQuestions({ startTimer: timers.start }).start('1718000000-a1b2c3', 'q')!;
    const viewer = new RecordingViewer();
    live.join(viewer);
    viewer.open = false;
    live.publish('planning', {});
    expect(live.watching).toBe(0);
    expect(timers.active).toHaveLength(1);
  });

  it('is cancelled by Stop while watched, and forgets the question when it ends', () => {
    const questions = new LiveQuestions();
    const live = questions.start('1718000000-a1b2c3', 'q')!;
    live.join(new RecordingViewer());
    live.stop();
    expect(live.signal.aborted).toBe(true);
    expect(questions.start('1718000000-a1b2c3', 'another')).toBeNull();
    live.end();
    expect(questions.get('1718000000-a1b2c3')).toBeUndefined();
    expect(live.publish('planning', {})).toBe(false);
  });

  it('says how many events a late viewer is sent first, and how long the model request still running has been', () => {
    let clock = 1_000;
    const live = new LiveQuestions({ now: () => clock }).start('1718000000-a1b2c3', 'q')!;
    expect(live.modelRequestMs).toBeNull();
    live.publish('llm_start', { stage: 'decision' });
    live.publish('llm_text', { delta: 'async' });
    clock += 4_500;
    expect([live.replayLength, live.modelRequestMs]).toEqual([2, 4_500]);
    live.publish('llm_end', {});
    expect(live.modelRequestMs).toBeNull();
  });

  it('tells a late viewer that earlier events were not kept once they passed the replay limit', () => {
    const live = new LiveQuestions().start('1718000000-a1b2c3', 'q')!;
    live.publish('running', { code: 'x'.repeat(MAX_REPLAY_BYTES - 100) });
    live.publish('tool_call', { args: 'y'.repeat(200) });
    live.publish('outcome', {});
    const late = new RecordingViewer();
    live.join(late);
    expect(late.events).toEqual(['running', REPLAY_GAP_EVENT, 'outcome']);
  });
});

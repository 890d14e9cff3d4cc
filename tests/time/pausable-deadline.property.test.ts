// Properties of the pausable deadline under any mix of waiting, pausing, answering and progress: pauses never count, caps hold.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PausableDeadline, type DeadlineExpired } from '../../src/time/pausable-deadline.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { check, RUNS } from '../property/property-settings.js';

const WAIT_MS = 1_000;
/** Bound: at most 60 steps per case, each at most two waits long, so a case stays small and its shrink short. */
const MAX_STEPS = 60;

type Step = { kind: 'advance'; ms: number } | { kind: 'pause' } | { kind: 'release'; which: number } | { kind: 'extend' };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 2 * WAIT_MS }) }),
  fc.record({ kind: fc.constant('pause' as const) }),
  fc.record({ kind: fc.constant('release' as const), which: fc.nat() }),
  fc.record({ kind: fc.constant('extend' as const) }),
);
const steps = fc.array(step, { maxLength: MAX_STEPS });

describe('PausableDeadline (properties)', () => {
  it('counts only running time: the wait ends exactly when running time since the last restart reaches it', async () => {
    await check('pauses never count', fc.property(steps, (plan) => {
      const clock = new ManualClock();
      const d = new PausableDeadline({ ms: WAIT_MS, clock });
      let runningAtAbort: number | null = null;
      d.signal.addEventListener('abort', () => { runningAtAbort = d.runningMs(); });
      // The model: running time in all, running time since the last restart, and which holds are still held.
      let running = 0;
      let sinceRestart = 0;
      let aborted = false;
      const releases: Array<() => void> = [];
      const held = new Set<number>();
      for (const s of plan) {
        if (s.kind === 'advance') {
          if (held.size === 0 && !aborted) {
            if (sinceRestart + s.ms >= WAIT_MS) {
              aborted = true;
              clock.advance(s.ms);
              expect(runningAtAbort).toBe(running + WAIT_MS - sinceRestart);
              continue;
            }
            running += s.ms;
            sinceRestart += s.ms;
          }
          clock.advance(s.ms);
        } else if (s.kind === 'pause') {
          releases.push(d.pause());
          if (!aborted) held.add(releases.length - 1);
        } else if (s.kind === 'release') {
          if (releases.length === 0) continue;
          const i = s.which % releases.length;
          releases[i]?.();
          held.delete(i);
        } else {
          d.extend();
          sinceRestart = 0;
        }
        expect(d.signal.aborted).toBe(aborted);
        if (!aborted) {
          expect(d.runningMs()).toBe(running);
          expect(d.remainingMs()).toBe(WAIT_MS - sinceRestart);
        }
      }
    }), RUNS.pure);
  });

  it('holds its caps: no stop outlasts maxPauseMs, all stops together never pass maxPausedMs, and it always ends', async () => {
    const caps = fc.record({
      maxPauseMs: fc.integer({ min: 1, max: 3 * WAIT_MS }),
      maxPausedMs: fc.integer({ min: 0, max: 5 * WAIT_MS }),
      maxTotalMs: fc.integer({ min: WAIT_MS, max: 5 * WAIT_MS }),
    });
    await check('caps hold', fc.property(caps, steps, ({ maxPauseMs, maxPausedMs, maxTotalMs }, plan) => {
      const clock = new ManualClock();
      const stops: number[] = [];
      const d = new PausableDeadline({ ms: WAIT_MS, clock, maxPauseMs, maxPausedMs, maxTotalMs, onResume: (ms) => stops.push(ms) });
      let endedAt: { now: number; running: number } | null = null;
      d.signal.addEventListener('abort', () => { endedAt = { now: clock.now(), running: d.runningMs() }; });
      const releases: Array<() => void> = [];
      for (const s of plan) {
        if (s.kind === 'advance') clock.advance(s.ms);
        else if (s.kind === 'pause') releases.push(d.pause());
        else if (s.kind === 'release') releases[s.which % Math.max(1, releases.length)]?.();
        else d.extend();
      }
      // Holds never released must not keep it from ending: past every cap it has run out.
      clock.advance(maxTotalMs + WAIT_MS + maxPausedMs);
      expect(d.signal.aborted).toBe(true);
      for (const stood of stops) expect(stood).toBeLessThanOrEqual(maxPauseMs);
      expect(stops.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(maxPausedMs);
      const ended = endedAt as { now: number; running: number } | null;
      expect(ended).not.toBeNull();
      expect(ended!.running).toBeLessThanOrEqual(maxTotalMs + WAIT_MS);
      expect(ended!.now).toBeLessThanOrEqual(maxTotalMs + WAIT_MS + maxPausedMs);
      if ((d.signal.reason as DeadlineExpired).expiry === 'total') expect(ended!.running).toBeGreaterThanOrEqual(maxTotalMs);
    }), RUNS.pure);
  });
});

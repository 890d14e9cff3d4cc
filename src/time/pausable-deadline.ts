// A countdown that stands still while a person is asked: the one clock behind a run's deadline and a call's wait.
import { CortexError } from '../errors.js';

/** Where a deadline reads the time and sets its timers; tests hand in their own. */
export interface DeadlineClock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** performance.now() and the global timers, looked up at each call (so fake timers installed later are seen). */
export const systemClock: DeadlineClock = {
  now: () => performance.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/** Why a deadline ran out: its wait passed, or extend() came after its longest running time in all. */
export type DeadlineExpiry = 'wait' | 'total';

/** The default abort reason when a deadline runs out: which limit, and how many ms it was. */
export class DeadlineExpired extends CortexError {
  constructor(readonly expiry: DeadlineExpiry, readonly ms: number) {
    super('deadline_expired', expiry === 'wait' ? `timed out after ${ms} ms` : `ran longer than ${ms} ms in all`);
  }
}

/** What a PausableDeadline counts and how far. */
export interface PausableDeadlineOptions {
  /** The wait: running time until `signal` aborts; extend() starts it again at this length. */
  ms: number;
  /** Aborting it aborts `signal` with the same reason. */
  parent?: AbortSignal;
  /** Longest running time in all (pauses not counted): extend() after it aborts instead of restarting. Default none. */
  maxTotalMs?: number;
  /** Longest one pause may stand the clock still; past it the clock runs while the holds stay held. Default none. */
  maxPauseMs?: number;
  /** Longest all pauses together may stand it still; once spent, pause() does nothing. Default none. */
  maxPausedMs?: number;
  /** The abort reason when time runs out; default a DeadlineExpired. */
  reason?: (expiry: DeadlineExpiry) => unknown;
  /** Called as the clock stops. */
  onPause?: () => void;
  /** Called as it starts again, with how long it stood still. */
  onResume?: (pausedMs: number) => void;
  clock?: DeadlineClock;
}

/**
 * Aborts `signal` once `ms` of running time has passed without extend(), or when `parent` aborts. Time while paused
 * never counts; pauses taken together share one stop, which ends when the last is resumed or a pause cap is reached.
 */
export class PausableDeadline {
  private readonly controller = new AbortController();
  private readonly clock: DeadlineClock;
  private readonly startedAt: number;
  private readonly onParentAbort = (): void => this.abort(this.options.parent?.reason);
  private timer: unknown;
  private pauseTimer: unknown;
  /** When the wait ends, while running. */
  private endsAt = 0;
  /** What is left of the wait, while standing still. */
  private left = 0;
  /** Holds not yet resumed (questions asked together share one stop). */
  private holds = 0;
  /** When the current stop began; null while running. */
  private pausedAt: number | null = null;
  /** How long this stop may last (its cap), when it has one. */
  private pauseCapMs = Infinity;
  private pausedMs = 0;
  private disposed = false;

  constructor(private readonly options: PausableDeadlineOptions) {
    this.clock = options.clock ?? systemClock;
    this.startedAt = this.clock.now();
    const { parent } = options;
    if (parent?.aborted) this.abort(parent.reason);
    else parent?.addEventListener('abort', this.onParentAbort, { once: true });
    this.arm(options.ms);
  }

  /** Aborted with the expiry reason when time runs out, with the parent's reason when the parent aborts. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Sets the time left to `ms` (default the whole wait), from now or from the end of the current stop. */
  arm(ms = this.options.ms): void {
    if (this.pausedAt !== null) {
      this.left = ms;
      return;
    }
    this.clock.clearTimeout(this.timer);
    this.endsAt = this.clock.now() + ms;
    if (!this.ended) this.timer = this.clock.setTimeout(() => this.expire('wait'), ms);
  }

  /** The work is still going (progress): the wait starts again, unless it has run its longest in all. */
  extend(): void {
    const { maxTotalMs } = this.options;
    if (this.pausedAt === null && maxTotalMs !== undefined && this.runningMs() >= maxTotalMs) this.expire('total');
    else this.arm();
  }

  /**
   * Stops the clock (a person is being asked); the returned function releases this hold, and the clock runs again
   * with the time that was left once every hold is released. Does nothing once the deadline has ended or the
   * pauses' budget (maxPausedMs) is spent.
   */
  pause(): () => void {
    const { maxPausedMs = Infinity, maxPauseMs = Infinity } = this.options;
    if (this.ended || this.pausedMs >= maxPausedMs) return () => undefined;
    if (++this.holds === 1 && this.pausedAt === null) {
      this.clock.clearTimeout(this.timer);
      this.pausedAt = this.clock.now();
      this.left = Math.max(0, this.endsAt - this.pausedAt);
      this.pauseCapMs = Math.min(maxPauseMs, maxPausedMs - this.pausedMs);
      if (Number.isFinite(this.pauseCapMs)) this.pauseTimer = this.clock.setTimeout(() => this.endPause(true), this.pauseCapMs);
      this.options.onPause?.();
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (--this.holds === 0) this.endPause(false);
    };
  }

  /** Running time so far, pauses not counted. */
  runningMs(): number {
    const now = this.clock.now();
    return now - this.startedAt - this.pausedMs - (this.pausedAt === null ? 0 : now - this.pausedAt);
  }

  /** Running time left before the signal aborts (0 once it has). */
  remainingMs(): number {
    if (this.controller.signal.aborted) return 0;
    return this.pausedAt === null ? Math.max(0, this.endsAt - this.clock.now()) : this.left;
  }

  /** Stops every timer and lets go of the parent; the signal stays as it is. */
  dispose(): void {
    this.disposed = true;
    this.stopTimers();
    this.options.parent?.removeEventListener('abort', this.onParentAbort);
  }

  private get ended(): boolean {
    return this.disposed || this.controller.signal.aborted;
  }

  /** The stop ends (every hold released, or its cap reached): the clock runs on with the time that was left. */
  private endPause(capped: boolean): void {
    if (this.pausedAt === null) return;
    this.clock.clearTimeout(this.pauseTimer);
    const stoodMs = capped ? Math.max(this.pauseCapMs, this.clock.now() - this.pausedAt) : this.clock.now() - this.pausedAt;
    this.pausedAt = null;
    this.pausedMs += stoodMs;
    if (this.ended) return;
    this.options.onResume?.(stoodMs);
    this.arm(this.left);
  }

  private expire(expiry: DeadlineExpiry): void {
    const { reason, maxTotalMs, ms } = this.options;
    this.abort(reason ? reason(expiry) : new DeadlineExpired(expiry, expiry === 'wait' ? ms : (maxTotalMs ?? ms)));
  }

  private abort(reason: unknown): void {
    this.stopTimers();
    this.controller.abort(reason);
  }

  private stopTimers(): void {
    this.clock.clearTimeout(this.timer);
    this.clock.clearTimeout(this.pauseTimer);
  }
}

// Bringing back a server that went away: at once the first time, then with exponential back-off, and never giving up.
import { McpError, errorMessage } from '../errors.js';

/** Wait before the first background attempt to bring a server back; each further failure doubles it. */
export const HEAL_FIRST_DELAY_MS = 1_000;
/** Longest wait between two attempts: a server down for hours is still tried every five minutes. */
export const HEAL_MAX_DELAY_MS = 5 * 60_000;

/** Runs `run` after `delayMs`; returns what cancels it. Tests pass their own to fire attempts when they choose. */
export interface HealTimer {
  schedule(delayMs: number, run: () => void): () => void;
}

/** The real clock; its timers do not keep a one-shot command alive. */
export const realHealTimer: HealTimer = {
  schedule(delayMs, run) {
    const timer = setTimeout(run, delayMs);
    timer.unref();
    return () => clearTimeout(timer);
  },
};

/** Where a server that went away stands: how many attempts failed in a row, the wait before the next, the last reason. */
export interface ReconnectState {
  /** Restarts since it last answered a request (the first one counts, whether or not it worked). */
  attempts: number;
  /** Wait before the next attempt, in ms. */
  retryInMs: number;
  /** Why the last attempt failed, or why the server went away. */
  error: string;
}

/** A status event: a server went down and waits to be retried, or it is back. */
export type ServerStateEvent = { server: string; state: 'reconnecting'; reconnect: ReconnectState } | { server: string; state: 'ready' };

/** The one thing healing needs of a connection. */
export interface Restartable {
  readonly spec: { id: string };
  readonly alive: boolean;
  start(): Promise<void>;
}

/** The wait before attempt `attempts + 1`: doubling from HEAL_FIRST_DELAY_MS, at most HEAL_MAX_DELAY_MS. */
export function backoffDelayMs(failedAttempts: number): number {
  const doublings = Math.min(Math.max(failedAttempts - 1, 0), 30);
  return Math.min(HEAL_FIRST_DELAY_MS * 2 ** doublings, HEAL_MAX_DELAY_MS);
}

interface Streak {
  attempts: number;
  retryInMs: number;
  error: string;
  /** Set while an attempt waits on the timer. */
  cancel?: () => void;
}

/**
 * Restarts servers for MultiMcp. A server that was answering is restarted at once when it is found gone. A second
 * restart before it has answered a request again (it keeps crashing, or it is down) is not made in the caller's
 * request: the request is refused at once with the server's state, and attempts continue in the background after
 * HEAL_FIRST_DELAY_MS, doubling up to HEAL_MAX_DELAY_MS, for as long as it takes.
 */
export class Healer {
  private readonly streaks = new Map<string, Streak>();
  private readonly restarting = new Map<string, Promise<void>>();
  private closed = false;

  constructor(private readonly options: { timer?: HealTimer; onState?: (event: ServerStateEvent) => void } = {}) {}

  /** A request to the server was answered: the streak ends, and its next loss is healed at once again. */
  answered(serverId: string): void {
    const streak = this.streaks.get(serverId);
    if (streak && !streak.cancel) this.streaks.delete(serverId);
  }

  /** Where the server stands while it is being brought back; undefined when it is not. */
  state(serverId: string): ReconnectState | undefined {
    const streak = this.streaks.get(serverId);
    return streak?.cancel ? { attempts: streak.attempts, retryInMs: streak.retryInMs, error: streak.error } : undefined;
  }

  /**
   * Brings `conn` back, or throws McpError: the start's own error, or the server's state when it is already being
   * retried in the background (see the class comment). Concurrent callers share one attempt.
   */
  async restart(conn: Restartable, why: unknown): Promise<void> {
    const id = conn.spec.id;
    const pending = this.restarting.get(id);
    if (pending) {
      await pending;
      if (conn.alive) return;
    }
    const streak = this.streaks.get(id);
    if (streak?.cancel) throw this.downError(id, streak);
    if (streak) {
      // Gone again before answering anything since the last restart: back off instead of restarting in a loop.
      this.scheduleNext(conn, { ...streak, error: reasonOf(id, why) });
      throw this.downError(id, this.streaks.get(id)!);
    }
    await this.attempt(conn, { attempts: 0, retryInMs: 0, error: reasonOf(id, why) }, true);
  }

  /** One start; a failure schedules the next. `rethrow`: the caller waits on this attempt and gets its error. */
  private attempt(conn: Restartable, before: Streak, rethrow: boolean): Promise<void> {
    const id = conn.spec.id;
    const streak: Streak = { attempts: before.attempts + 1, retryInMs: before.retryInMs, error: before.error };
    this.streaks.set(id, streak);
    const promise = conn
      .start()
      .then(
        () => {
          if (before.attempts > 0) this.options.onState?.({ server: id, state: 'ready' });
        },
        (err: unknown) => {
          if (!this.closed) this.scheduleNext(conn, { ...streak, error: reasonOf(id, err) });
          if (rethrow) throw err;
        },
      )
      .finally(() => this.restarting.delete(id));
    this.restarting.set(id, promise);
    return promise;
  }

  private scheduleNext(conn: Restartable, streak: Streak): void {
    if (this.closed) return;
    const id = conn.spec.id;
    const retryInMs = backoffDelayMs(streak.attempts);
    const next: Streak = { attempts: streak.attempts, retryInMs, error: streak.error };
    next.cancel = (this.options.timer ?? realHealTimer).schedule(retryInMs, () => {
      if (this.closed || this.streaks.get(id) !== next) return;
      delete next.cancel;
      void this.attempt(conn, next, false);
    });
    this.streaks.set(id, next);
    this.options.onState?.({ server: id, state: 'reconnecting', reconnect: { attempts: next.attempts, retryInMs, error: next.error } });
  }

  private downError(serverId: string, streak: Streak): McpError {
    return new McpError(serverId, `is down (${reconnectText(streak)}); it is being brought back in the background`);
  }

  /** Stops every attempt waiting on the timer. */
  close(): void {
    this.closed = true;
    for (const streak of this.streaks.values()) streak.cancel?.();
    this.streaks.clear();
  }
}

/** Why, without the `MCP server "id": ` its status line already names. */
function reasonOf(serverId: string, err: unknown): string {
  const message = errorMessage(err);
  const prefix = `MCP server "${serverId}": `;
  return message.startsWith(prefix) ? message.slice(prefix.length) : message;
}

/** The state in plain words, e.g. "3 attempts failed, next in 4 s; last: connection refused". */
export function reconnectText({ attempts, retryInMs, error }: Pick<ReconnectState, 'attempts' | 'retryInMs' | 'error'>): string {
  const seconds = Math.max(1, Math.round(retryInMs / 1000));
  return `${attempts} ${attempts === 1 ? 'restart' : 'restarts'} without an answer, next try in ${seconds} s; last: ${error}`;
}

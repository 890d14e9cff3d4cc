// Questions running now, by session: every event kept for replay, sent to each viewer; only Stop or no viewer for a while cancels.

/**
 * How long a question runs on with nobody watching before it is cancelled: long enough for a reload, a second tab
 * or a phone that discarded the tab to come back; short enough that a question nobody returns to stops spending.
 */
export const VIEWERLESS_GRACE_MS = 60_000;

/**
 * Bytes of events kept per question for viewers who join later. Events are small (a plan's code, tool arguments up
 * to about 1 MB); one that no longer fits is still sent live but not kept, and a late viewer is told some are missing.
 * Below the SSE stream's own cut (MAX_SSE_BUFFERED_BYTES) so a replay never trips it.
 */
export const MAX_REPLAY_BYTES = 2 * 2 ** 20;

/** One watcher of a question: an SSE stream. `send` is false once it is closed. */
export interface Viewer {
  send(event: string, data: unknown): boolean;
  end(): void;
}

/** Starts a timer; returns its cancel function. Tests hand in one they fire themselves. */
export type StartTimer = (fire: () => void, ms: number) => () => void;

const realTimer: StartTimer = (fire, ms) => {
  const timer = setTimeout(fire, ms);
  timer.unref();
  return () => clearTimeout(timer);
};

/** The event a late viewer gets where events were not kept (see MAX_REPLAY_BYTES). */
export const REPLAY_GAP_EVENT = 'replay_gap';

/** One running question: what it asked, when, its events so far, its viewers, and its cancel. */
export class LiveQuestion {
  /** When the question was accepted (ISO), so a page can tell this question's saved items from earlier ones. */
  readonly started = new Date().toISOString();
  private readonly controller = new AbortController();
  private readonly kept: Array<{ event: string; data: unknown }> = [];
  private keptBytes = 0;
  private gap = false;
  private readonly viewers = new Set<Viewer>();
  private cancelGrace: (() => void) | undefined;
  private ended = false;
  /** When the model request now running began (clock ms), for a late viewer's elapsed time. */
  private modelRequestAt: number | undefined;

  constructor(
    readonly sessionId: string,
    readonly question: string,
    private readonly options: { graceMs: number; startTimer: StartTimer; onEnd: () => void; now: () => number },
  ) {}

  /** Events a viewer joining now is sent before the live ones. */
  get replayLength(): number {
    return this.kept.length;
  }

  /** How long the model request running now has been running, in ms; null when none is. */
  get modelRequestMs(): number | null {
    return this.modelRequestAt === undefined ? null : this.options.now() - this.modelRequestAt;
  }

  /** Aborts when the question is stopped, or left without viewers for the grace period. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Viewers now. */
  get watching(): number {
    return this.viewers.size;
  }

  /** False once the question has ended. */
  get running(): boolean {
    return !this.ended;
  }

  /** Keeps one event and sends it to every viewer; false once the question has ended. */
  publish(event: string, data: unknown): boolean {
    if (this.ended) return false;
    if (event === 'llm_start') this.modelRequestAt = this.options.now();
    else if (event === 'llm_end') this.modelRequestAt = undefined;
    const bytes = Buffer.byteLength(JSON.stringify(data) ?? '');
    if (this.keptBytes + bytes <= MAX_REPLAY_BYTES) {
      this.kept.push({ event, data });
      this.keptBytes += bytes;
    } else if (!this.gap) {
      // Where the first event was left out, a late viewer is told so; smaller ones after it are still kept.
      this.gap = true;
      this.kept.push({ event: REPLAY_GAP_EVENT, data: {} });
    }
    for (const viewer of [...this.viewers]) if (!viewer.send(event, data)) this.leave(viewer);
    return true;
  }

  /**
   * Adds a viewer: it is sent every kept event first (a `replay_gap` event where some were not kept), then the
   * live ones. Returns its leave function (safe to call twice); the last viewer leaving starts the grace period.
   */
  join(viewer: Viewer): () => void {
    if (this.ended) {
      viewer.end();
      return () => {};
    }
    // A viewer cut during its replay never joined: the grace period, if running, goes on.
    for (const { event, data } of this.kept) if (!viewer.send(event, data)) return () => {};
    this.cancelGrace?.();
    this.cancelGrace = undefined;
    this.viewers.add(viewer);
    return () => this.leave(viewer);
  }

  /** Cancels the question (Stop). */
  stop(): void {
    this.controller.abort();
  }

  /** Ends every viewer's stream after the events sent so far, and forgets the question. */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.cancelGrace?.();
    for (const viewer of this.viewers) viewer.end();
    this.viewers.clear();
    this.options.onEnd();
  }

  private leave(viewer: Viewer): void {
    if (!this.viewers.delete(viewer) || this.viewers.size > 0 || this.ended) return;
    this.cancelGrace?.();
    this.cancelGrace = this.options.startTimer(() => this.stop(), this.options.graceMs);
  }
}

/** The running questions of one server, one per session at most. */
export class LiveQuestions {
  private readonly bySession = new Map<string, LiveQuestion>();
  private readonly graceMs: number;
  private readonly startTimer: StartTimer;
  private readonly now: () => number;

  /** `startTimer` and `now` (a clock in ms) are the real ones unless a test hands in its own. */
  constructor({ graceMs = VIEWERLESS_GRACE_MS, startTimer = realTimer, now = () => performance.now() }: { graceMs?: number; startTimer?: StartTimer; now?: () => number } = {}) {
    this.graceMs = graceMs;
    this.startTimer = startTimer;
    this.now = now;
  }

  /** The question running in `sessionId`, if any. */
  get(sessionId: string): LiveQuestion | undefined {
    return this.bySession.get(sessionId);
  }

  /** Registers a question in `sessionId`; null when one is already running there. */
  start(sessionId: string, question: string): LiveQuestion | null {
    if (this.bySession.has(sessionId)) return null;
    const live = new LiveQuestion(sessionId, question, {
      graceMs: this.graceMs,
      startTimer: this.startTimer,
      now: this.now,
      onEnd: () => this.bySession.delete(sessionId),
    });
    this.bySession.set(sessionId, live);
    return live;
  }

  /** Viewers of all running questions now. */
  get viewers(): number {
    let total = 0;
    for (const live of this.bySession.values()) total += live.watching;
    return total;
  }

  /** Cancels every running question (the server is closing). */
  stopAll(): void {
    for (const live of this.bySession.values()) live.stop();
  }
}

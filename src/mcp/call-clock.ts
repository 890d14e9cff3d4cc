// One tool call's clock on the MCP side: its wait, restarted by progress, capped in all, stopped while a person is asked.
import { ErrorCode, McpError as SdkMcpError } from '@modelcontextprotocol/sdk/types.js';

/**
 * Longest a person's answers may stop one call's clock in all; past it the clock runs on while they are asked,
 * so a server asking again and again cannot hold a call forever.
 */
export const MAX_PAUSED_PER_CALL_MS = 30 * 60_000;
/**
 * The MCP SDK's own timeout for a call, which cannot be stopped: only a backstop behind this clock, so it never
 * fires first (the longest a call may run, plus the longest it may stand still, plus a minute).
 */
export function sdkBackstopMs(maxTotalTimeoutMs: number): number {
  return maxTotalTimeoutMs + MAX_PAUSED_PER_CALL_MS + 60_000;
}

/** Why a call's clock ended it. */
export type ClockExpiry = { kind: 'idle'; timeoutMs: number } | { kind: 'total'; maxTotalTimeoutMs: number };

/**
 * Aborts `signal` after `timeoutMs` without an answer or progress, or when progress comes after `maxTotalTimeoutMs`
 * of running time; `parent` aborting aborts it too. Time while paused counts against neither.
 */
export class CallClock {
  private readonly controller = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  private readonly startedAt = performance.now();
  private endsAt = 0;
  private pauses = 0;
  private pausedAt = 0;
  private leftAtPause = 0;
  private pausedMs = 0;
  private readonly onParentAbort: () => void;
  private disposed = false;
  private pauseLimit: NodeJS.Timeout | undefined;
  /** Counts ended pauses, so a resume function from an ended pause does nothing. */
  private generation = 0;

  constructor(private readonly timeoutMs: number, private readonly maxTotalTimeoutMs: number, private readonly parent?: AbortSignal) {
    this.onParentAbort = () => this.controller.abort(parent?.reason);
    if (parent?.aborted) this.controller.abort(parent.reason);
    parent?.addEventListener('abort', this.onParentAbort, { once: true });
    this.arm(timeoutMs);
  }

  /** Aborted with a ClockExpired when the clock ends the call, with the parent's reason when the parent aborts. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** The server reported progress: the wait starts again, unless the call has run its longest. */
  progress(): void {
    if (this.pauses > 0) {
      this.leftAtPause = this.timeoutMs;
      return;
    }
    if (performance.now() - this.startedAt - this.pausedMs >= this.maxTotalTimeoutMs) {
      this.expire({ kind: 'total', maxTotalTimeoutMs: this.maxTotalTimeoutMs });
      return;
    }
    this.arm(this.timeoutMs);
  }

  /**
   * Stops the clock while a person is asked; the returned function starts it again with the time that was left.
   * After MAX_PAUSED_PER_CALL_MS paused in all the clock runs again whether or not anyone has answered.
   */
  pause(): () => void {
    if (this.pausedMs >= MAX_PAUSED_PER_CALL_MS || this.controller.signal.aborted || this.disposed) return () => undefined;
    if (this.pauses++ === 0) {
      clearTimeout(this.timer);
      this.pausedAt = performance.now();
      this.leftAtPause = Math.max(0, this.endsAt - this.pausedAt);
      this.pauseLimit = setTimeout(() => this.endPause(), MAX_PAUSED_PER_CALL_MS - this.pausedMs);
    }
    const generation = this.generation;
    let resumed = false;
    return () => {
      if (resumed || generation !== this.generation) return;
      resumed = true;
      if (--this.pauses === 0) this.endPause();
    };
  }

  dispose(): void {
    this.disposed = true;
    clearTimeout(this.timer);
    clearTimeout(this.pauseLimit);
    this.parent?.removeEventListener('abort', this.onParentAbort);
  }

  /** Every pause ends (the person answered, or the pauses ran out): the clock runs on with the time that was left. */
  private endPause(): void {
    clearTimeout(this.pauseLimit);
    this.generation++;
    this.pauses = 0;
    this.pausedMs += performance.now() - this.pausedAt;
    if (!this.disposed) this.arm(this.leftAtPause);
  }

  private arm(ms: number): void {
    clearTimeout(this.timer);
    this.endsAt = performance.now() + ms;
    if (!this.controller.signal.aborted) this.timer = setTimeout(() => this.expire({ kind: 'idle', timeoutMs: this.timeoutMs }), ms);
  }

  private expire(expiry: ClockExpiry): void {
    clearTimeout(this.timer);
    this.controller.abort(new ClockExpired(expiry));
  }
}

/** The abort reason when the clock ends a call: the SDK's own "Request timed out" error, so callers read it as before. */
export class ClockExpired extends SdkMcpError {
  constructor(readonly expiry: ClockExpiry) {
    super(ErrorCode.RequestTimeout, expiry.kind === 'idle' ? 'Request timed out' : 'Maximum total timeout exceeded', expiry.kind === 'idle' ? { timeout: expiry.timeoutMs } : { maxTotalTimeout: expiry.maxTotalTimeoutMs });
  }
}

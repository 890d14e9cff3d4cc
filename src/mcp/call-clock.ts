// One tool call's clock on the MCP side: a PausableDeadline restarted by progress, capped in all, read as the SDK's timeout.
import { ErrorCode, McpError as SdkMcpError } from '@modelcontextprotocol/sdk/types.js';
import { PausableDeadline } from '../time/pausable-deadline.js';

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
export class CallClock extends PausableDeadline {
  constructor(timeoutMs: number, maxTotalTimeoutMs: number, parent?: AbortSignal) {
    super({
      ms: timeoutMs,
      maxTotalMs: maxTotalTimeoutMs,
      maxPausedMs: MAX_PAUSED_PER_CALL_MS,
      ...(parent ? { parent } : {}),
      reason: (expiry) => new ClockExpired(expiry === 'wait' ? { kind: 'idle', timeoutMs } : { kind: 'total', maxTotalTimeoutMs }),
    });
  }

  /** The server reported progress: the wait starts again, unless the call has run its longest. */
  progress(): void {
    this.extend();
  }
}

/** The abort reason when the clock ends a call: the SDK's own "Request timed out" error, so callers read it as before. */
export class ClockExpired extends SdkMcpError {
  constructor(readonly expiry: ClockExpiry) {
    super(ErrorCode.RequestTimeout, expiry.kind === 'idle' ? 'Request timed out' : 'Maximum total timeout exceeded', expiry.kind === 'idle' ? { timeout: expiry.timeoutMs } : { maxTotalTimeout: expiry.maxTotalTimeoutMs });
  }
}

// Sandbox limits: clamping the configured ones, and the fixed caps shared by the host and the worker.
import { clampToLimit, SANDBOX_LIMITS } from '../config/limits.js';
import type { SandboxLimits } from './types.js';

/** Captured console output per run, in characters (DESIGN §3.1: ≈64 KB). */
export const MAX_LOG_CHARS = 64_000;
/** Captured console output per run, in lines (DESIGN §3.1: 1,000 lines). */
export const MAX_LOG_LINES = 1_000;
/** JSON of one tool call's arguments; bigger is refused before it leaves the isolate and again on the host. */
export const MAX_TOOL_ARGS_CHARS = 1_000_000;
/** JSON of one tool result handed into the isolate; a bigger result is refused as a tool error. */
export const MAX_TOOL_RESULT_CHARS = 1_000_000;
/** Default for one tool call's own time limit (config/limits.ts); the run deadline may cut it shorter. */
export const TOOL_CALL_TIMEOUT_MS = SANDBOX_LIMITS.toolTimeoutMs.default;
/** Refused calls (unknown tool, bad arguments, over the cap) tolerated per run before the run is ended. */
export const MAX_REFUSED_CALLS_PER_RUN = 10;
/** Length of an error description carried back to the model. */
export const MAX_ERROR_CHARS = 2_000;
/** Longest the run's clock stops while the user is asked to approve a call; then it runs again, so nobody away from the terminal holds a run forever. */
export const MAX_APPROVAL_PAUSE_MS = 300_000;
/** How long past its deadline a worker may take to report before it is SIGKILLed (DESIGN §3.1). */
export const WORKER_OVERRUN_GRACE_MS = 1_000;
/** How long the worker waits for a disposed isolate's thread to stop before it calls itself unhealthy. */
export const ISOLATE_SETTLE_GRACE_MS = 250;
/** A worker whose resident memory grew past this is replaced after its run, so one bad run can't bloat the next. */
export const WORKER_MAX_RSS_MB = 384;
/** Runs one worker serves before it is replaced, bounding slow leaks in V8 or isolated-vm. */
export const WORKER_MAX_RUNS = 1_000;

/** Fills in defaults and clamps each limit into its range (config/limits.ts); a non-finite value takes the default. */
export function resolveLimits(partial: Partial<SandboxLimits> = {}): Required<SandboxLimits> {
  const out = {} as Required<SandboxLimits>;
  for (const key of Object.keys(SANDBOX_LIMITS) as Array<keyof SandboxLimits>) out[key] = clampToLimit(SANDBOX_LIMITS[key], partial[key]);
  return out;
}

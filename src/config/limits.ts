// Every numeric limit a profile sets, once: its key, default, range, unit and why. The profile schema, the sandbox's
// clamp and the agent loop's bounds are all built from these tables, so they cannot disagree.

export interface Limit {
  /** The key under its profiles.yaml section. */
  key: string;
  default: number;
  /** Accepted range, finite, so a config typo cannot switch a limit off (DESIGN §4: `.inf`). */
  min: number;
  max: number;
  unit: string;
  why: string;
}

/** profiles.yaml `sandbox:`, by the sandbox's own names. */
export const SANDBOX_LIMITS = {
  maxToolCalls: { key: 'max_tool_calls_per_plan', default: 5, min: 0, max: 1_000, unit: 'calls', why: 'tool calls one plan may make; the next one is refused' },
  timeoutMs: { key: 'timeout_ms', default: 30_000, min: 100, max: 600_000, unit: 'ms', why: 'wall clock for one solve(), awaited tool calls included' },
  memoryMb: { key: 'memory_mb', default: 64, min: 8, max: 4_096, unit: 'MB', why: 'the isolate heap' },
  maxOutputChars: { key: 'max_output_chars', default: 1_000_000, min: 100, max: 1_000_000, unit: 'characters', why: "what solve() may return (as large as one tool's result) and its logs" },
  toolTimeoutMs: { key: 'tool_timeout_ms', default: 20_000, min: 100, max: 300_000, unit: 'ms', why: "one MCP call from the sandbox, well under the SDK's 60 s default" },
} as const satisfies Record<string, Limit>;

/** profiles.yaml `strategy:`: how long the loop may go on. */
export const STRATEGY_LIMITS = {
  maxSteps: { key: 'max_steps', default: 3, min: 1, max: 20, unit: 'steps', why: 'FURTHER_PROCESSING_REQUIRED hand-overs a question may take' },
  maxLifelinesPerStep: { key: 'max_lifelines_per_step', default: 3, min: 0, max: 10, unit: 'retries', why: 'retries of a step after a failed plan' },
} as const satisfies Record<string, Limit>;

/** `value` rounded down and clamped into the limit's range; the default when it is not a finite number. */
export function clampToLimit(limit: Limit, value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) return limit.default;
  return Math.min(limit.max, Math.max(limit.min, Math.floor(value)));
}

// The object `cortex ask --json` prints, shared by the CLI, the HTTP API and `cortex mcp`.
import type { AgentRunResult } from '../agent/types.js';

/** The `--json` object of a run: the result, with `reason` only when there is one. */
export type ResultJson = Omit<AgentRunResult, 'reason'> & { reason?: string };

/** The `--json` object of a run (what the SSE `result` event and `Accept: application/json` also send). */
export function resultJson(result: AgentRunResult): ResultJson {
  const { reason, ...json } = result;
  return { ...json, ...(reason ? { reason } : {}) };
}

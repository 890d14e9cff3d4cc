// Turns a computed number into a tool result, refusing NaN and ±Infinity, which JSON cannot carry.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { toolError, toolResult } from '../shared/tool-result.js';

/**
 * `toolResult(value)` when `value` is finite; otherwise an isError result naming `expression`
 * (e.g. "10 ^ 400") and why it has no answer, so the model can change its inputs.
 */
export function numberResult(expression: string, value: number): CallToolResult {
  if (Number.isNaN(value)) return toolError(`${expression} is not a real number`);
  if (!Number.isFinite(value)) {
    return toolError(`${expression} is ${value > 0 ? '' : 'negative '}infinite or beyond the largest 64-bit float (about 1.8e308)`);
  }
  return toolResult(value);
}

// Builds MCP tool results in the one shape every Cortex-R server returns: {result} as structured content and as JSON text.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/**
 * A successful tool result: `structuredContent: {result: value}` plus the same object as JSON text,
 * so both `structuredContent.result` and `JSON.parse(content[0].text).result` work (DESIGN §3.1).
 * `value` must be JSON-serialisable; callers keep numbers finite (JSON has no NaN/Infinity).
 */
export function toolResult<T>(value: T): CallToolResult & { structuredContent: { result: T } } {
  const structuredContent = { result: value };
  return {
    content: [{ type: 'text', text: JSON.stringify(structuredContent) }],
    structuredContent,
  };
}

/**
 * A failed tool result: `isError: true` with `message` as its only text, for an expected failure the
 * model can act on (bad input, missing file). The server keeps running; the SDK skips output
 * validation for error results, so no structuredContent is needed.
 */
export function toolError(message: string): CallToolResult & { isError: true } {
  return {
    content: [{ type: 'text', text: message }],
    isError: true,
  };
}

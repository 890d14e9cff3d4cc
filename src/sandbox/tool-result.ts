// What `tools.x()` resolves to, and the message of a failed tool result (DESIGN §3.1).
import type { ToolResult } from '../mcp/types.js';

/** Length of a server's error text kept in the message for the model. */
const MAX_TOOL_ERROR_CHARS = 1_000;

/**
 * The parsed result of a tool call: `structuredContent.result` if present, else `structuredContent`,
 * else the text parsed as JSON (its `.result` if it has one), else the text; with no text at all,
 * the content items themselves.
 */
export function parseToolResult(result: ToolResult): unknown {
  const structured = result.structuredContent;
  if (typeof structured === 'object' && structured !== null) {
    return Object.hasOwn(structured, 'result') ? structured.result : structured;
  }
  const text = contentText(result);
  if (text === null) return result.content;
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) && Object.hasOwn(parsed, 'result')) {
      return (parsed as { result: unknown }).result;
    }
    return parsed;
  } catch {
    return text;
  }
}

/** The server's message from a result with `isError`, shortened. */
export function toolErrorText(result: ToolResult): string {
  const text = contentText(result)?.trim() || 'the tool reported an error without a message';
  return text.length > MAX_TOOL_ERROR_CHARS ? `${text.slice(0, MAX_TOOL_ERROR_CHARS)}…` : text;
}

function contentText(result: ToolResult): string | null {
  const texts = (Array.isArray(result.content) ? result.content : [])
    .filter((c) => c?.type === 'text' && typeof c.text === 'string')
    .map((c) => c.text as string);
  return texts.length > 0 ? texts.join('\n') : null;
}

/** Known names nearest to `name` by edit distance (at most `count`), for "did you mean" messages. */
export function closestNames(name: string, known: readonly string[], count = 3): string[] {
  const wanted = name.toLowerCase();
  return known
    .map((k) => ({ k, d: editDistance(wanted, k.toLowerCase()) - (k.toLowerCase().includes(wanted) || wanted.includes(k.toLowerCase()) ? 2 : 0) }))
    .sort((x, y) => x.d - y.d || x.k.localeCompare(y.k))
    .slice(0, count)
    .map((x) => x.k);
}

/** Levenshtein distance; inputs are tool names, so the O(n·m) table is tiny. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}

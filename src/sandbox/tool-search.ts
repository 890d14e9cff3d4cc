// Tool search from inside solve(): `mcp.search_tools(query)` and `mcp.describe_tool(name)` answer from the run's
// catalogue on the host, as data, so hundreds of signatures need not be in the prompt (Cloudflare's codemode idea).
import type { ToolInfo } from '../mcp/types.js';
import type { Embedder } from '../llm/types.js';
import { shortenAtWord, toolSignature } from './catalogue.js';
import { fusedToolScores, fusesWith } from './tool-embeddings.js';
import { scoreTools, toolWords } from './tool-ranking.js';

/** Matches returned when the code gives no limit, and the most it may ask for. */
const DEFAULT_SEARCH_RESULTS = 10;
export const MAX_SEARCH_RESULTS = 25;
/** Description length in a search result (describe_tool gives it whole). */
const MAX_RESULT_DESCRIPTION_CHARS = 200;
/** Longest query looked at; past it the words are ignored. */
const MAX_QUERY_CHARS = 500;

/** One search hit: enough to choose and call the tool. */
export interface ToolMatch {
  name: string;
  server: string;
  description: string;
  /** How to call it, e.g. `tools.add({a: number, b: number}): Promise<number>`. */
  signature: string;
}

/**
 * The tools best matching `query`, best first (see scoreTools: names split into words, descriptions, server ids,
 * synonyms and stems, rare words counting more). Ties keep catalogue order. An empty query lists the first tools.
 */
export function searchTools(tools: readonly ToolInfo[], query: string, limit = DEFAULT_SEARCH_RESULTS): ToolMatch[] {
  const text = query.slice(0, MAX_QUERY_CHARS);
  return bestOf(tools, toolWords(text).length === 0 ? tools.map(() => 1) : scoreTools(tools, text), limit);
}

/**
 * searchTools, with the word ranking fused with embedding similarity when `embedder` is an embedding model (see
 * fusedToolScores; the built-in lexical embedder, or none, leaves the word ranking alone). Never throws: when the
 * model fails, the answer is searchTools'.
 */
export async function searchToolsWith(embedder: Embedder | undefined, tools: readonly ToolInfo[], query: string, limit = DEFAULT_SEARCH_RESULTS): Promise<ToolMatch[]> {
  const text = query.slice(0, MAX_QUERY_CHARS);
  if (!fusesWith(embedder) || toolWords(text).length === 0 || tools.length === 0) return searchTools(tools, query, limit);
  return bestOf(tools, await fusedToolScores(tools, text, scoreTools(tools, text), embedder), limit);
}

/** The `limit` (clamped to 1..MAX_SEARCH_RESULTS) best-scored tools with a score above 0; ties keep catalogue order. */
function bestOf(tools: readonly ToolInfo[], scores: readonly number[], limit: number): ToolMatch[] {
  const count = Math.min(Math.max(1, Math.floor(Number.isFinite(limit) ? limit : DEFAULT_SEARCH_RESULTS)), MAX_SEARCH_RESULTS);
  return tools
    .map((tool, index) => ({ tool, index, score: scores[index]! }))
    .filter((s) => s.score > 0)
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .slice(0, count)
    .map(({ tool }) => ({
      name: tool.name,
      server: tool.server,
      description: shortenAtWord(tool.description.replace(/\s+/g, ' ').trim(), MAX_RESULT_DESCRIPTION_CHARS),
      signature: toolSignature(tool),
    }));
}

/** Everything about one tool, by its offered name (or `<server>.<tool>`); null when there is none. */
export function describeTool(
  tools: readonly ToolInfo[],
  name: string,
): (ToolMatch & { input_schema: Record<string, unknown>; output_schema?: Record<string, unknown>; read_only?: boolean }) | null {
  const tool = tools.find((t) => t.name === name) ?? tools.find((t) => `${t.server}.${t.remoteName}` === name);
  if (!tool) return null;
  return {
    name: tool.name,
    server: tool.server,
    description: tool.description,
    signature: toolSignature(tool),
    input_schema: tool.inputSchema,
    ...(tool.outputSchema ? { output_schema: tool.outputSchema } : {}),
    ...(tool.annotations?.readOnlyHint !== undefined ? { read_only: tool.annotations.readOnlyHint } : {}),
  };
}

/**
 * The proxy's answer to `mcp.search_tools(query, limit?)` (mode `search`, `name` the query) and
 * `mcp.describe_tool(name)` (mode `describe`): a JSON reply `{ok: true, value}`, or a tool error for an unknown name.
 * Not tool calls: the call cap is not charged, and nothing leaves the host but the query to `embedder` when one is
 * given (see searchToolsWith).
 */
export async function lookUpTools(tools: readonly ToolInfo[], name: string, argsJson: string, mode: 'search' | 'describe', embedder?: Embedder): Promise<string> {
  if (mode === 'search') {
    let limit = DEFAULT_SEARCH_RESULTS;
    try {
      const first = (JSON.parse(argsJson) as unknown[])[0];
      if (typeof first === 'number') limit = first;
    } catch {
      // A limit that is not a number is ignored.
    }
    return JSON.stringify({ ok: true, value: await searchToolsWith(embedder, tools, name, limit) });
  }
  const found = describeTool(tools, name);
  if (found) return JSON.stringify({ ok: true, value: found });
  const near = searchTools(tools, name, 3).map((m) => m.name);
  return JSON.stringify({ ok: false, kind: 'tool_error', message: `No tool named "${name.slice(0, 200)}".${near.length ? ` Closest: ${near.join(', ')}.` : ''} Find tools with mcp.search_tools("what you need").` });
}

// The tool catalogue shown to the model: one line per tool with a TypeScript-style signature, then notes on results.
import type { ToolInfo } from '../mcp/types.js';
import { callee } from './call-args.js';
import { MAX_INLINE_BINARY_CHARS } from './tool-result.js';
import { schemaToType } from './schema-type.js';

/** Description length kept per tool, so a verbose server can't crowd the prompt. */
const MAX_DESCRIPTION_CHARS = 300;
/**
 * Past this many tools, or this many characters of signatures, the prompt gets a short index of servers and the
 * plan finds tools with mcp.search_tools / mcp.describe_tool (hosts defer tool definitions past ~10 % of context;
 * 6,000 characters is about 1,500 tokens, a tenth of a small 16k window).
 */
const TOOL_INDEX_THRESHOLD_TOOLS = 40;
const TOOL_INDEX_THRESHOLD_CHARS = 6_000;
/** Tool names shown per server in the index, as examples of what it offers. */
const INDEX_EXAMPLE_NAMES = 4;

/**
 * What every tool call may resolve to, and how to read the raw result whatever the server (README
 * "What tools return"); kept in step with parseToolResult() and resourceValue().
 */
export const RESULT_NOTES = [
  'Results: `tools.<name>()` resolves to the type shown when a tool has an output schema; otherwise to its text (parsed when it is JSON, its `.result` taken when there is one).',
  `A result that also carries images, audio or resources resolves to \`{text, value?, images?, audio?, resources?, links?}\`: images and audio as \`{mimeType, bytes, data?}\` (base64 \`data\` left out past ${MAX_INLINE_BINARY_CHARS.toLocaleString('en-US')} characters), resources as \`{uri, mimeType?, text?}\`, links as \`{uri, name, description?}\`.`,
  '`await mcp.read_resource(uri)` reads a resource (e.g. a link\'s `uri`) as `{uri, mimeType?, text?}` or `{uri, mimeType?, bytes, data?}`; it counts as a tool call.',
  '`await mcp.call_tool(name, args)` returns the raw MCP result `{content: [{type: "text", text} | {type: "image", data, mimeType} | …], structuredContent?, isError?}`: use `r.structuredContent` when present, else join the `text` of the items whose `type` is "text"; the text need not be JSON.',
];

/** Said when servers share a tool name, so the model knows why some names carry a server id. */
export const QUALIFIED_NAMES_NOTE =
  'A tool name that several servers offer is given as `<server>.<tool>` for each of them (e.g. `tools["memory-a.create_entities"]`): call the copy on the server you mean.';

/**
 * One line per tool: how to call it, what it returns, what it does, e.g.
 * `tools.add({a: number, b: number}): Promise<number>  — Add two numbers`; then, after a blank line,
 * RESULT_NOTES (and QUALIFIED_NAMES_NOTE when a name is qualified). The return type is the output
 * schema's `result` when it has one, since that is what `tools.x()` resolves to (DESIGN §3.1).
 */
export function renderToolCatalogue(tools: ToolInfo[]): string {
  if (tools.length === 0) return '';
  const notes = tools.some((t) => t.name !== t.remoteName) ? [...RESULT_NOTES, QUALIFIED_NAMES_NOTE] : RESULT_NOTES;
  const lines = tools.length > TOOL_INDEX_THRESHOLD_TOOLS ? null : tools.map(renderTool);
  const full = lines && lines.reduce((n, l) => n + l.length + 1, 0) <= TOOL_INDEX_THRESHOLD_CHARS ? lines : null;
  return [...(full ?? renderToolIndex(tools)), '', ...notes.map((n) => `- ${n}`)].join('\n');
}

/** The short index used when tools are many: servers, a few names each, and how to search from inside solve(). */
function renderToolIndex(tools: ToolInfo[]): string[] {
  const byServer = new Map<string, string[]>();
  for (const t of tools) byServer.set(t.server, [...(byServer.get(t.server) ?? []), t.name]);
  return [
    `${tools.length} tools on ${byServer.size} server${byServer.size === 1 ? '' : 's'}, too many to list here. Find the ones you need from inside solve() first (these lookups are not tool calls and do not count against the limit):`,
    '- `await mcp.search_tools("words describing what you need", 10)` resolves to `[{name, server, description, signature}]`, best match first.',
    '- `await mcp.describe_tool(name)` resolves to `{name, server, description, signature, input_schema, output_schema?}`.',
    'Then call the tool you chose by its name: `const [t] = await mcp.search_tools("add two numbers"); const sum = await tools[t.name]({a: 2, b: 3});`.',
    'Servers:',
    ...[...byServer].map(([server, names]) => {
      const shown = names.slice(0, INDEX_EXAMPLE_NAMES).join(', ');
      return `- ${server}: ${names.length} tools, e.g. ${shown}${names.length > INDEX_EXAMPLE_NAMES ? ', …' : ''}`;
    }),
  ];
}

function renderTool(tool: ToolInfo): string {
  const description = tool.description.replace(/\s+/g, ' ').trim();
  const shortened = shortenAtWord(description, MAX_DESCRIPTION_CHARS);
  const signature = toolSignature(tool);
  return shortened ? `${signature}  — ${shortened}` : signature;
}

/** How to call a tool: `tools.add({a: number, b: number}): Promise<number>`. */
export function toolSignature(tool: ToolInfo): string {
  return `${callee(tool.name)}(${inputType(tool.inputSchema)}): Promise<${outputType(tool.outputSchema)}>`;
}

/** Cuts at the last word boundary within `max` characters (never mid-word), marking the cut with an ellipsis. */
export function shortenAtWord(text: string, max: number): string {
  if (text.length <= max) return text;
  const head = text.slice(0, max - 1);
  const space = /\s/.test(text[max - 1]!) ? head.length : head.lastIndexOf(' ');
  // A single word longer than the limit is cut where it must be.
  const cut = space > max / 2 ? head.slice(0, space) : head;
  return `${cut.replace(/[\s,;:.-]+$/, '')}…`;
}

function inputType(schema: Record<string, unknown>): string {
  const properties = schema.properties;
  if (typeof properties !== 'object' || properties === null || Object.keys(properties).length === 0) return '';
  return schemaToType(schema);
}

function outputType(schema: Record<string, unknown> | undefined): string {
  if (!schema) return 'unknown';
  const properties = schema.properties;
  if (typeof properties === 'object' && properties !== null && Object.hasOwn(properties, 'result')) {
    return schemaToType((properties as Record<string, unknown>).result);
  }
  return schemaToType(schema);
}

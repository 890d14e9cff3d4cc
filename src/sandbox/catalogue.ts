// The tool catalogue shown to the model: one line per tool with a TypeScript-style signature.
import type { ToolInfo } from '../mcp/types.js';
import { schemaToType } from './schema-type.js';

/** Description length kept per tool, so a verbose server can't crowd the prompt. */
const MAX_DESCRIPTION_CHARS = 300;

/**
 * One line per tool: how to call it, what it returns, what it does, e.g.
 * `tools.add({a: number, b: number}): Promise<number>  — Add two numbers`.
 * The return type is the output schema's `result` when it has one, since that is what `tools.x()`
 * resolves to (DESIGN §3.1).
 */
export function renderToolCatalogue(tools: ToolInfo[]): string {
  return tools.map(renderTool).join('\n');
}

function renderTool(tool: ToolInfo): string {
  const callee = /^[A-Za-z_$][\w$]*$/.test(tool.name) ? `tools.${tool.name}` : `tools[${JSON.stringify(tool.name)}]`;
  const description = tool.description.replace(/\s+/g, ' ').trim();
  const shortened = shortenAtWord(description, MAX_DESCRIPTION_CHARS);
  const signature = `${callee}(${inputType(tool.inputSchema)}): Promise<${outputType(tool.outputSchema)}>`;
  return shortened ? `${signature}  — ${shortened}` : signature;
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

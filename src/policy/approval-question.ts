// The question a person is asked before a call: the tool, each place it reaches, what the question holds, and the arguments whole.
import type { CallContext, FlowConcern, ToolInfo } from '../mcp/types.js';

/** Characters of an argument shown on one line; longer values are folded onto more lines, never cut silently. */
const FOLD_CHARS = 100;
/** Lines shown of one value; past them the question says how many characters were not shown. */
const MAX_LINES_PER_VALUE = 40;

/**
 * Characters that could redraw or hide text on a terminal or a page (C0/C1 controls, DEL, bidirectional overrides,
 * zero-width and line separators), shown as `\uXXXX`. JSON.stringify escapes only C0, quotes and backslashes.
 */
// eslint-disable-next-line no-control-regex
const INVISIBLE = /[\u007f-\u009f\u00ad\u061c\u115f\u1160\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\ufff9-\ufffb]/gu;

/** A value as one escaped line of text: strings quoted, every control or invisible character written out. */
export function escapedValue(value: unknown): string {
  const json = JSON.stringify(value) ?? String(value);
  return json.replace(INVISIBLE, (c) => `\\u${c.codePointAt(0)!.toString(16).padStart(4, '0')}`);
}

/** One argument, folded at FOLD_CHARS, with a plain note when more than MAX_LINES_PER_VALUE lines would be needed. */
function foldedArgument(name: string, value: unknown): string[] {
  const text = escapedValue(value);
  const lines: string[] = [];
  for (let at = 0; at < text.length && lines.length < MAX_LINES_PER_VALUE; at += FOLD_CHARS) lines.push(text.slice(at, at + FOLD_CHARS));
  const shownChars = lines.join('').length;
  const head = `    ${escapedValue(name).slice(1, -1)}: `;
  const out = lines.map((line, i) => (i === 0 ? head : ' '.repeat(head.length)) + line);
  if (shownChars < text.length) out.push(`${' '.repeat(head.length)}(${(text.length - shownChars).toLocaleString('en-US')} more characters not shown)`);
  return out;
}

/** What "always" covers: this tool to these places (or this tool, when it names none). */
export function alwaysKey(tool: Pick<ToolInfo, 'server' | 'remoteName'>, context?: CallContext): string {
  const places = [...(context?.destinations ?? [])].sort();
  return `${tool.server}.${tool.remoteName}${places.length > 0 ? ` → ${places.join(', ')}` : ''}`;
}

/** The question shown to the person for one call (the terminal adds the choices); the same text on the page and through MCP. */
export function approvalQuestion(tool: ToolInfo, args: Record<string, unknown>, concern?: FlowConcern, context: CallContext | undefined = concern): string {
  const lines = [`Allow ${tool.server}.${tool.remoteName}?`];
  if (context && context.destinations.length > 0) lines.push(`  It reaches: ${context.destinations.join(', ')}`);
  if (context && context.holds.length > 0) lines.push(`  This question has read: ${context.holds.join('; ')}`);
  if (concern) lines.push(`  Careful: ${concern.why}.`);
  else lines.push(tool.annotations?.destructiveHint === false ? '  It may change data.' : '  It may change or delete data.');
  const entries = Object.entries(args);
  lines.push(entries.length === 0 ? '  Arguments: none' : '  Arguments:');
  for (const [name, value] of entries) lines.push(...foldedArgument(name, value));
  return lines.join('\n');
}

// Turning the isolate's argument list into one tool's arguments, and the messages the model reads when that fails.
import type { ToolInfo } from '../mcp/types.js';
import { isPlainObject } from './check-args.js';
import { MAX_TOOL_ARGS_CHARS } from './limits.js';
import type { CallMode } from './protocol.js';
import { schemaToType } from './schema-type.js';
import { closestNames } from '../closest-names.js';

/** Longest tool name looked up for "closest names"; a longer one is not a typo. */
export const MAX_TOOL_NAME_CHARS = 200;
/** Tool names listed when a name is too far off for "closest" to mean anything. */
export const MAX_NAMES_LISTED = 20;

/** How the model calls `name` on `root`: `tools.add` or `tools["odd-name"]` (`skills.…` for saved plans). */
export function callee(name: string, root = 'tools'): string {
  return /^[A-Za-z_$][\w$]*$/.test(name) ? `${root}.${name}` : `${root}[${JSON.stringify(name)}]`;
}

/** The message for a call to a tool nobody offers: who offers it under a longer name, the closest names, or the list. */
export function unknownToolMessage(tools: ToolInfo[], byName: ReadonlyMap<string, ToolInfo>, name: string, shown: string): string {
  const owners = tools.filter((t) => t.remoteName === name);
  if (owners.length > 1) {
    return `Tool "${shown}" is offered by several servers; call the one you mean: ${owners.map((t) => callee(t.name)).join(' or ')}.`;
  }
  const near = name.length > MAX_TOOL_NAME_CHARS ? [] : closestNames(name, [...byName.keys()]);
  const hint = near.length
    ? ` Closest: ${near.join(', ')}.`
    : byName.size
      ? ` Available: ${[...byName.keys()].slice(0, MAX_NAMES_LISTED).join(', ')}.`
      : ' No tools are available in this run.';
  return `Unknown tool "${shown}".${hint} Use only the tools listed in the catalogue.`;
}

/** The call's arguments as one object, or the message for the model when they can't be read. */
export function decodeArgs(tool: ToolInfo, argsJson: string, mode: CallMode): Record<string, unknown> | string {
  if (argsJson.length > MAX_TOOL_ARGS_CHARS) {
    return `Arguments for ${callee(tool.name)} are ${argsJson.length} characters of JSON; the limit is ${MAX_TOOL_ARGS_CHARS}. Pass smaller inputs.`;
  }
  let list: unknown;
  try {
    list = JSON.parse(argsJson);
  } catch {
    return `Arguments for ${callee(tool.name)} could not be read as JSON.`;
  }
  if (!Array.isArray(list)) return `Arguments for ${callee(tool.name)} could not be read.`;
  const properties = isPlainObject(tool.inputSchema.properties) ? Object.keys(tool.inputSchema.properties) : [];
  let args: unknown;
  if (mode === 'raw' || (list.length === 1 && isPlainObject(list[0]))) {
    args = list[0] ?? {};
  } else if (list.length === 0) {
    args = {};
  } else if (list.length <= properties.length) {
    // tools.add(2, 3): positional values fill the schema's properties in order.
    args = Object.fromEntries(list.map((v, i) => [properties[i], v]));
  } else {
    return `${callee(tool.name)} takes one object argument: ${callee(tool.name)}(${schemaToType(tool.inputSchema)}).`;
  }
  if (!isPlainObject(args)) {
    return `${callee(tool.name)} takes one object argument, got ${Array.isArray(args) ? 'an array' : typeof args}: call it as ${callee(tool.name)}(${schemaToType(tool.inputSchema)}).`;
  }
  // The Python original wrapped arguments as {input: {...}}; unwrap when the schema has no `input`.
  const keys = Object.keys(args);
  if (keys.length === 1 && keys[0] === 'input' && isPlainObject(args.input) && !properties.includes('input')) {
    return args.input;
  }
  return args;
}

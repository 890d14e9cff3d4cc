// The standalone check behind `cortex servers test ID`: call each tool it may and can, and say which it did not.
import { readExample, EXAMPLE_META_KEY } from '../../mcp-servers/shared/example-meta.js';
import { errorMessage } from '../errors.js';
import type { MultiMcp } from './multi-mcp.js';
import type { ApproveTool, ToolInfo } from './types.js';

/** Characters of a result shown per tool. */
const MAX_DETAIL_CHARS = 120;

/** How one tool fared: `untested` when there were no arguments to call it with, `skipped` when it may change data. */
export interface ToolCheck {
  tool: string;
  status: 'pass' | 'fail' | 'untested' | 'skipped';
  /** Where the arguments came from: `--args`, the tool's `_meta` example, its schema's defaults, or none needed. */
  args_from: 'example' | 'args' | 'defaults' | 'no-arguments' | null;
  ms: number;
  detail: string;
}

/** What the check may do. */
export interface CheckOptions {
  /** `--all`: call tools that are not read-only too, each through `approve` (the same gate as `ask`). */
  all?: boolean;
  approve?: ApproveTool;
  /** Each call's own time limit (progress from the server extends it). */
  timeoutMs: number;
}

/**
 * Calls each tool of `serverId` with arguments from, in order: `given[tool]` (`--args`), the tool's `_meta`
 * example, the defaults its schema gives for every required property, or `{}` when it requires none. Only tools
 * that declare `readOnlyHint: true` are called unless `all`; with `all`, a call the gate refuses is `skipped`.
 * A call passes when it returns without isError (or with isError, when the example says it should). Never throws.
 */
export async function checkServer(multi: MultiMcp, serverId: string, given: Record<string, Record<string, unknown>>, options: CheckOptions): Promise<ToolCheck[]> {
  const checks: ToolCheck[] = [];
  for (const tool of multi.listTools([serverId])) checks.push(await checkTool(multi, tool, given[tool.name], options));
  return checks;
}

async function checkTool(multi: MultiMcp, tool: ToolInfo, given: Record<string, unknown> | undefined, options: CheckOptions): Promise<ToolCheck> {
  const skip = (detail: string): ToolCheck => ({ tool: tool.name, status: 'skipped', args_from: null, ms: 0, detail });
  if (!options.all && tool.annotations?.readOnlyHint !== true) return skip('may change data (not marked read-only); test it with --all');
  const plan = argumentsFor(tool, given);
  if ('missing' in plan) {
    return {
      tool: tool.name,
      status: 'untested',
      args_from: null,
      ms: 0,
      detail: `needs ${plan.missing.join(', ')}; give them with --args '{"${tool.name}": {…}}' (no _meta["${EXAMPLE_META_KEY}"] example)`,
    };
  }
  if (options.approve) {
    const decision = await options.approve(tool, plan.args, { signal: new AbortController().signal });
    if (!decision.approved) return skip(`not called: ${decision.reason}`);
  }
  const started = performance.now();
  try {
    const res = await multi.callTool(tool.server, tool.remoteName, plan.args, { timeoutMs: options.timeoutMs });
    const ms = Math.round(performance.now() - started);
    const text = res.content.map((c) => c.text ?? `[${c.type}]`).join(' ').replace(/\s+/g, ' ').slice(0, MAX_DETAIL_CHARS);
    const ok = Boolean(res.isError) === plan.expectsError;
    return { tool: tool.name, status: ok ? 'pass' : 'fail', args_from: plan.from, ms, detail: `${JSON.stringify(plan.args)} → ${text}` };
  } catch (err) {
    return { tool: tool.name, status: 'fail', args_from: plan.from, ms: Math.round(performance.now() - started), detail: errorMessage(err) };
  }
}

type Plan = { args: Record<string, unknown>; expectsError: boolean; from: NonNullable<ToolCheck['args_from']> } | { missing: string[] };

function argumentsFor(tool: ToolInfo, given: Record<string, unknown> | undefined): Plan {
  if (given) return { args: given, expectsError: false, from: 'args' };
  const example = readExample(tool.meta);
  if (example) return { ...example, from: 'example' };
  const required = ((tool.inputSchema.required as unknown[] | undefined) ?? []).map(String);
  if (required.length === 0) return { args: {}, expectsError: false, from: 'no-arguments' };
  const properties = (tool.inputSchema.properties ?? {}) as Record<string, { default?: unknown } | undefined>;
  const missing = required.filter((name) => properties[name]?.default === undefined);
  if (missing.length > 0) return { missing };
  return { args: Object.fromEntries(required.map((name) => [name, properties[name]!.default])), expectsError: false, from: 'defaults' };
}

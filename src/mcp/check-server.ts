// The standalone check behind `cortex servers test ID`: call every tool it can, and say which it could not.
import { readExample, EXAMPLE_META_KEY } from '../../mcp-servers/shared/example-meta.js';
import { errorMessage } from '../errors.js';
import type { MultiMcp } from './multi-mcp.js';
import type { ToolInfo } from './types.js';

/** One tool call of the check. */
const CHECK_CALL_TIMEOUT_MS = 10_000;
/** Characters of a result shown per tool. */
const MAX_DETAIL_CHARS = 120;

/** How one tool fared: `untested` when there were no arguments to call it with. */
export interface ToolCheck {
  tool: string;
  status: 'pass' | 'fail' | 'untested';
  /** Where the arguments came from: the tool's `_meta` example, `--args`, or none needed. */
  args_from: 'example' | 'args' | 'no-arguments' | null;
  ms: number;
  detail: string;
}

/**
 * Calls each tool of `serverId` with arguments from, in order: `given[tool]` (`--args`), the tool's `_meta`
 * example, or `{}` when it requires none. Tools with required arguments and none given are `untested`.
 * A call passes when it returns without isError (or with isError, when the example says it should). Never throws.
 */
export async function checkServer(multi: MultiMcp, serverId: string, given: Record<string, Record<string, unknown>> = {}): Promise<ToolCheck[]> {
  const checks: ToolCheck[] = [];
  for (const tool of multi.listTools([serverId])) checks.push(await checkTool(multi, tool, given[tool.name]));
  return checks;
}

async function checkTool(multi: MultiMcp, tool: ToolInfo, given: Record<string, unknown> | undefined): Promise<ToolCheck> {
  const example = readExample(tool.meta);
  const required = (tool.inputSchema.required as unknown[] | undefined) ?? [];
  const plan = given
    ? { args: given, expectsError: false, from: 'args' as const }
    : example
      ? { ...example, from: 'example' as const }
      : required.length === 0
        ? { args: {}, expectsError: false, from: 'no-arguments' as const }
        : undefined;
  if (!plan) {
    return {
      tool: tool.name,
      status: 'untested',
      args_from: null,
      ms: 0,
      detail: `needs ${required.join(', ')}; give them with --args '{"${tool.name}": {…}}' (no _meta["${EXAMPLE_META_KEY}"] example)`,
    };
  }
  const started = performance.now();
  try {
    const res = await multi.callTool(tool.server, tool.remoteName, plan.args, { timeoutMs: CHECK_CALL_TIMEOUT_MS });
    const ms = Math.round(performance.now() - started);
    const text = res.content.map((c) => c.text ?? `[${c.type}]`).join(' ').replace(/\s+/g, ' ').slice(0, MAX_DETAIL_CHARS);
    const ok = Boolean(res.isError) === plan.expectsError;
    return { tool: tool.name, status: ok ? 'pass' : 'fail', args_from: plan.from, ms, detail: `${JSON.stringify(plan.args)} → ${text}` };
  } catch (err) {
    return { tool: tool.name, status: 'fail', args_from: plan.from, ms: Math.round(performance.now() - started), detail: errorMessage(err) };
  }
}

// The standalone check behind `cortex servers test ID`: call every tool with its example arguments.
import { readExample, EXAMPLE_META_KEY } from '../../mcp-servers/shared/example-meta.js';
import { errorMessage } from '../errors.js';
import type { MultiMcp } from './multi-mcp.js';
import type { ToolInfo } from './types.js';

/** One tool call of the check. */
const CHECK_CALL_TIMEOUT_MS = 10_000;

export interface ToolCheck {
  tool: string;
  status: 'pass' | 'fail' | 'no-example';
  ms: number;
  detail: string;
}

/** Calls each tool of `serverId` with its example arguments; never throws for a failing tool. */
export async function checkServer(multi: MultiMcp, serverId: string): Promise<ToolCheck[]> {
  const checks: ToolCheck[] = [];
  for (const tool of multi.listTools([serverId])) checks.push(await checkTool(multi, tool));
  return checks;
}

async function checkTool(multi: MultiMcp, tool: ToolInfo): Promise<ToolCheck> {
  const example = readExample(tool.meta);
  if (!example) {
    return { tool: tool.name, status: 'no-example', ms: 0, detail: `no example arguments in _meta["${EXAMPLE_META_KEY}"]` };
  }
  const started = performance.now();
  try {
    const res = await multi.callTool(tool.server, tool.remoteName, example.args, { timeoutMs: CHECK_CALL_TIMEOUT_MS });
    const ms = Math.round(performance.now() - started);
    const text = res.content.map((c) => c.text ?? '').join(' ').slice(0, 120);
    const ok = Boolean(res.isError) === example.expectsError;
    return { tool: tool.name, status: ok ? 'pass' : 'fail', ms, detail: `${JSON.stringify(example.args)} → ${text}` };
  } catch (err) {
    return { tool: tool.name, status: 'fail', ms: Math.round(performance.now() - started), detail: errorMessage(err) };
  }
}

// `cortex servers list` and `cortex servers test ID`.
import type { LoadedConfig } from '../config/load-config.js';
import { UsageError } from '../errors.js';
import { checkServer } from '../mcp/check-server.js';
import { MultiMcp } from '../mcp/multi-mcp.js';
import { EXIT } from './exit-codes.js';
import type { Output } from './output.js';

/** Starts every configured server and prints each one's status and tools. Exit 0 when all are ready. */
export async function serversList(config: LoadedConfig, out: Output): Promise<number> {
  const multi = await MultiMcp.start(config.servers);
  try {
    const statuses = multi.statuses();
    if (out.json) {
      out.result(statuses);
    } else if (statuses.length === 0) {
      out.line(`No MCP servers are configured in ${config.profileFile}.`);
    } else {
      for (const s of statuses) {
        const head = `${s.id.padEnd(12)} ${s.state === 'ready' ? out.green('ready ') : out.red('failed')}`;
        out.line(s.state === 'ready' ? `${head} ${s.tools.length} tools: ${s.tools.join(', ')}` : `${head} ${s.error}`);
      }
    }
    return statuses.every((s) => s.state === 'ready') ? EXIT.ok : EXIT.gaveUp;
  } finally {
    await multi.close();
  }
}

/** Connects to one server, lists its tools and calls each with its example arguments. Exit 0 when all pass. */
export async function serversTest(config: LoadedConfig, id: string, out: Output): Promise<number> {
  const spec = config.servers.find((s) => s.id === id);
  if (!spec) {
    const known = config.servers.map((s) => s.id).join(', ') || '(none)';
    throw new UsageError(`no MCP server "${id}" in ${config.profileFile}; configured: ${known}`);
  }
  const multi = await MultiMcp.start([spec]);
  try {
    const status = multi.statuses()[0]!;
    if (status.state === 'failed') {
      if (out.json) out.result({ server: id, ok: false, error: status.error, tools: [] });
      else out.line(`${id}: ${out.red('failed to start')}: ${status.error}`);
      return EXIT.gaveUp;
    }
    if (!out.json) out.line(`${id}: connected, ${status.tools.length} tools`);
    const checks = await checkServer(multi, id);
    const failed = checks.filter((c) => c.status === 'fail').length;
    if (out.json) {
      out.result({ server: id, ok: failed === 0, tools: checks });
    } else {
      for (const c of checks) {
        const mark = c.status === 'pass' ? out.green('pass') : c.status === 'fail' ? out.red('FAIL') : out.dim('skip');
        out.line(`  ${mark} ${c.tool.padEnd(30)} ${String(c.ms).padStart(5)} ms  ${c.detail}`);
      }
      const passed = checks.filter((c) => c.status === 'pass').length;
      out.line(`${passed} passed, ${failed} failed${checks.length - passed - failed ? `, ${checks.length - passed - failed} skipped` : ''}`);
    }
    return failed === 0 ? EXIT.ok : EXIT.gaveUp;
  } finally {
    await multi.close();
  }
}

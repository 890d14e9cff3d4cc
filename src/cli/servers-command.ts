// `cortex servers list` and `cortex servers test ID`.
import type { LoadedConfig } from '../config/load-config.js';
import { UsageError } from '../errors.js';
import { approvalGateFor } from '../policy/approval-gate.js';
import { checkServer } from '../mcp/check-server.js';
import { MultiMcp, multiMcpOptions } from '../mcp/multi-mcp.js';
import type { ServerStatus } from '../mcp/types.js';
import { isPlainObject } from '../sandbox/check-args.js';
import { firstSentence } from '../sandbox/diagnosis.js';
import { EXIT } from './exit-codes.js';
import type { Output } from './output.js';
import { plural } from '../runtime/describe-event.js';
import { terminalAsk } from './terminal-ask.js';

/**
 * Starts every configured server and prints each one's status and tools as soon as it is ready (or failed), its
 * lines together; `--json` prints them all at the end, in config order. Exit 0 when all enabled ones are ready.
 */
export async function serversList(config: LoadedConfig, out: Output): Promise<number> {
  const multi = MultiMcp.launch(config.servers, await multiMcpOptions(config));
  try {
    // Settles once this server has started or given up (never rejects): its status is then final for the listing.
    const settled = (id: string) => multi.awaitTools([id]).catch(() => undefined);
    const first = multi.statuses();
    if (out.json) {
      await Promise.all(config.servers.map((s) => settled(s.id)));
      out.result(multi.statuses());
    } else if (first.length === 0) {
      out.line(`No MCP servers are configured in ${config.profileFile}.`);
    } else {
      const width = Math.max(12, ...first.map((s) => s.id.length));
      // Servers that will not start (disabled, or a broken entry) are known at once.
      const starting = new Set(config.servers.map((s) => s.id));
      for (const s of first) if (!starting.has(s.id)) printStatus(s, width, out);
      await Promise.all(
        config.servers.map(async ({ id }) => {
          await settled(id);
          const status = multi.statuses().find((s) => s.id === id);
          if (status) printStatus(status, width, out);
        }),
      );
    }
    return multi.statuses().every((s) => s.state === 'ready' || s.state === 'disabled') ? EXIT.ok : EXIT.gaveUp;
  } finally {
    await multi.close();
  }
}

/** One server's lines: state and tools, then the roots offered and the protocol spoken. */
function printStatus(s: ServerStatus, width: number, out: Output): void {
  const state = s.state === 'ready' ? out.green('ready   ') : s.state === 'disabled' ? out.dim('disabled') : out.red(s.state.padEnd(8));
  const head = `${s.id.padEnd(width)} ${state}`;
  out.line(s.state === 'ready' ? `${head} ${plural(s.tools.length, 'tool', 'tools')}: ${s.tools.join(', ')}` : `${head} ${s.error}`);
  if (s.state === 'ready') out.line(out.dim(`${' '.repeat(width)} roots offered: ${s.roots?.length ? s.roots.join(', ') : '(none)'}${s.protocolVersion ? `; MCP ${s.protocolVersion}` : ''}`));
}

/** Parses `--args`: a JSON object of tool name → arguments object. */
function parseCheckArgs(text: string | undefined): Record<string, Record<string, unknown>> {
  if (text === undefined) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`--args is not JSON (${(err as Error).message}); expected {"tool": {"arg": value}}`);
  }
  if (!isPlainObject(value) || !Object.values(value).every(isPlainObject)) {
    throw new UsageError('--args must be a JSON object of tool name → arguments object, e.g. {"echo": {"message": "hi"}}');
  }
  return value as Record<string, Record<string, unknown>>;
}

/** Most characters of a skipped tool's reason shown. */
const MAX_SKIP_CHARS = 300;

/** How `servers test` may call tools: `all` adds those not marked read-only, through the same approvals as `ask` (`yes`: --yes). */
export interface ServersTestOptions {
  all?: boolean;
  yes?: boolean;
}

/**
 * Connects to one server, lists its tools and calls each it may and can (see checkServer). Exit 0 only when at
 * least one tool was tested and none failed; untested and skipped tools are listed as such.
 */
export async function serversTest(config: LoadedConfig, id: string, out: Output, argsJson?: string, options: ServersTestOptions = {}): Promise<number> {
  const given = parseCheckArgs(argsJson);
  const spec = config.servers.find((s) => s.id === id);
  if (!spec) {
    const off = config.disabledServers.find((s) => s.id === id);
    if (off) throw new UsageError(`MCP server "${id}" will not start: ${off.reason}`);
    const known = config.servers.map((s) => s.id).join(', ') || '(none)';
    throw new UsageError(`no MCP server "${id}" in ${config.profileFile}; configured: ${known}`);
  }
  const multi = await MultiMcp.start([spec], await multiMcpOptions(config));
  try {
    const status = multi.statuses()[0]!;
    if (status.state === 'failed') {
      if (out.json) out.result({ server: id, ok: false, error: status.error, tools: [] });
      else out.line(`${id}: ${out.red('failed to start')}: ${status.error}`);
      return EXIT.gaveUp;
    }
    if (!out.json) out.line(`${id}: connected, ${plural(status.tools.length, 'tool', 'tools')}`);
    const ask = out.json ? undefined : terminalAsk(out);
    const approve = options.all ? approvalGateFor(config, { yes: options.yes, ask }) : undefined;
    const timeoutMs = spec.callTimeoutMs ?? config.profile.sandbox.tool_timeout_ms;
    const checks = await checkServer(multi, id, given, { all: Boolean(options.all), timeoutMs, ...(approve ? { approve } : {}) });
    const count = (s: string) => checks.filter((c) => c.status === s).length;
    const passed = count('pass');
    const failed = count('fail');
    const untested = count('untested');
    const skipped = count('skipped');
    const ok = failed === 0 && passed > 0;
    if (out.json) {
      out.result({ server: id, ok, passed, failed, untested, skipped, tools: checks });
    } else {
      for (const c of checks) {
        const mark = c.status === 'pass' ? out.green('pass') : c.status === 'fail' ? out.red('FAIL') : out.dim(c.status);
        // A refusal's reason is written for the model (its advice follows the first sentence): a person reads the fact.
        out.line(`  ${mark} ${c.tool.padEnd(30)} ${String(c.ms).padStart(5)} ms  ${c.status === 'skipped' ? firstSentence(c.detail, MAX_SKIP_CHARS) : c.detail}`);
      }
      out.line(`${passed} passed, ${failed} failed, ${untested} untested, ${skipped} skipped${passed === 0 && failed === 0 ? ' — nothing was tested' : ''}`);
      if (options.all && !options.yes && checks.some((c) => c.status === 'skipped')) out.line(out.dim('(--yes calls the tools that need your approval without asking)'));
    }
    return ok ? EXIT.ok : EXIT.gaveUp;
  } finally {
    await multi.close();
  }
}

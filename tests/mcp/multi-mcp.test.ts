import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerSpec } from '../../src/config/load-config.js';
import { McpError } from '../../src/errors.js';
import { MultiMcp } from '../../src/mcp/multi-mcp.js';
import { PROJECT_ROOT, builtPath } from '../../src/paths.js';

const spec = (id: string, script: string, env: Record<string, string> = {}): ServerSpec => ({
  id,
  command: process.execPath,
  args: [script],
  cwd: PROJECT_ROOT,
  env,
  description: `${id} server`,
  capabilities: [],
});

const PROBE = join(PROJECT_ROOT, 'tests', 'fixtures', 'probe-server.mjs');
const parsed = (r: { content: Array<{ text?: string }> }) => JSON.parse(r.content[0]!.text!).result;

describe('MultiMcp', () => {
  let multi: MultiMcp;

  beforeAll(async () => {
    multi = await MultiMcp.start([
      spec('math', builtPath('mcp-servers/math/main.js')),
      spec('probe', PROBE, { CORTEX_PROBE_TOKEN: 'from-config' }),
      spec('broken', join(PROJECT_ROOT, 'tests', 'fixtures', 'does-not-exist.mjs')),
    ]);
  });
  afterAll(() => multi.close());

  it('starts every server once and maps each tool to its server', () => {
    const byServer = Object.fromEntries(multi.statuses().map((s) => [s.id, s]));
    expect(byServer.math!.state).toBe('ready');
    expect(byServer.math!.tools).toEqual(expect.arrayContaining(['add', 'factorial', 'fibonacci_numbers']));
    expect(multi.listTools(['probe']).map((t) => t.name).sort()).toEqual(['crash_once', 'get_env', 'get_pid', 'hang']);
    expect(multi.listTools(['math']).every((t) => t.server === 'math')).toBe(true);
  });

  it('reports a server that cannot start, with its stderr, and keeps the others', async () => {
    const broken = multi.statuses().find((s) => s.id === 'broken')!;
    expect(broken.state).toBe('failed');
    expect(broken.error).toMatch(/could not start.*Cannot find module/s);
    expect(parsed(await multi.callTool('math', 'add', { a: 2, b: 3 }))).toBe(5);
  });

  it('keeps one session open across calls instead of a process per call', async () => {
    const first = parsed(await multi.callTool('probe', 'get_pid', {}));
    const second = parsed(await multi.callTool('probe', 'get_pid', {}));
    expect(second).toBe(first);
  });

  it("passes the server the environment its config gives", async () => {
    expect(parsed(await multi.callTool('probe', 'get_env', { name: 'CORTEX_PROBE_TOKEN' }))).toBe('from-config');
  });

  it('restarts a killed server and answers the next call', async () => {
    const pid = multi.pidOf('math')!;
    process.kill(pid, 'SIGKILL');
    expect(parsed(await multi.callTool('math', 'multiply', { a: 6, b: 7 }))).toBe(42);
    expect(multi.pidOf('math')).not.toBe(pid);
  });

  it('restarts a server that dies during a call and retries the call once', async () => {
    const marker = join(mkdtempSync(join(tmpdir(), 'cortex-probe-')), 'crashed');
    const before = multi.pidOf('probe');
    expect(parsed(await multi.callTool('probe', 'crash_once', { marker }))).toBe('survived');
    expect(multi.pidOf('probe')).not.toBe(before);
  });

  it('times out a call that never answers, and the server still serves the next one', async () => {
    await expect(multi.callTool('probe', 'hang', {}, { timeoutMs: 300 })).rejects.toThrow(/tool "hang" failed: .*timed out/i);
    expect(parsed(await multi.callTool('probe', 'get_env', { name: 'CORTEX_PROBE_TOKEN' }))).toBe('from-config');
  });

  it('refuses a tool no server offers', async () => {
    await expect(multi.callTool('math', 'teleport', {})).rejects.toThrow(/"math": offers no tool named "teleport"/);
    await expect(multi.callTool('nowhere', 'add', {})).rejects.toThrow(McpError);
  });
});

// Servers start in the background: a question waits only for the servers perception chose; cached tool lists stand in meanwhile.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runAgent } from '../../src/agent/loop.js';
import type { ServerSpec } from '../../src/config/server-spec.js';
import { ScriptedLlm } from '../helpers/scripted-llm.js';
import { MultiMcp } from '../../src/mcp/multi-mcp.js';
import { ToolCache } from '../../src/mcp/tool-cache.js';
import { SessionMemory } from '../../src/memory/session-memory.js';
import { Trace } from '../../src/memory/trace.js';
import { PROJECT_ROOT, builtPath } from '../../src/paths.js';
import { FakeSandbox, perceptionJson, plan } from '../agent/fakes.js';

const BAD = join(PROJECT_ROOT, 'tests', 'fixtures', 'bad-server.mjs');
/** Long enough that the slow server is still starting when the question ends; close() ends it. */
const SLOW_START_MS = 120_000;

const server = (id: string, args: string[], extra: Partial<ServerSpec> = {}): ServerSpec => ({
  id,
  command: process.execPath,
  args,
  cwd: PROJECT_ROOT,
  env: {},
  description: `${id} server`,
  capabilities: [],
  ...extra,
});
const MATH = server('math', [builtPath('mcp-servers/math/main.js')]);
const SLOW = server('slow', [BAD, 'silent'], { startTimeoutMs: SLOW_START_MS });

describe('MultiMcp started in the background', () => {
  let multi: MultiMcp | undefined;
  afterEach(() => multi?.close());

  it('answers a math question while a slow server it does not use is still starting', async () => {
    multi = MultiMcp.launch([SLOW, MATH]);
    const llm = new ScriptedLlm({ turns: [perceptionJson(['math']), plan('return "FINAL_ANSWER: " + (await tools.add({ a: 2, b: 3 }));')] });
    const sandbox = new FakeSandbox([
      async ({ tools, caller }) => {
        const res = await caller.callTool('math', 'add', { a: 2, b: 3 });
        const value = JSON.parse(res.content[0]!.text!).result as number;
        return { ok: true, value: `FINAL_ANSWER: ${value} (tools: ${tools.map((t) => t.server).join(',')})`, logs: [], calls: [], ms: 1 };
      },
    ]);
    const memory = SessionMemory.create({ baseDir: mkdtempSync(join(tmpdir(), 'cortex-bg-')) });
    const result = await runAgent({
      query: 'What is 2 + 3?',
      llm,
      servers: multi.summaries(),
      tools: multi.listTools(),
      awaitTools: (ids, signal) => multi!.awaitTools(ids, signal),
      caller: multi,
      sandbox,
      strategy: 'conservative',
      maxSteps: 1,
      maxLifelinesPerStep: 0,
      memoryFallbackEnabled: false,
      memory,
      trace: new Trace(memory.tracePath),
    });
    expect(result.answer).toMatch(/^5 \(tools: (math,)*math\)$/);
    // The order of events is the proof: the answer came while the slow server had not started.
    expect(multi.statuses().find((s) => s.id === 'slow')!.state).toBe('starting');
    // Perception still saw the slow server, so it could have chosen it.
    expect(llm.requests[0]!.prompt).toContain('- slow: slow server');
  });

  it('waits for the chosen servers only', async () => {
    multi = MultiMcp.launch([SLOW, MATH]);
    const tools = await multi.awaitTools(['math']);
    expect(new Set(tools.map((t) => t.server))).toEqual(new Set(['math']));
    expect(multi.statuses().map((s) => [s.id, s.state])).toEqual([['slow', 'starting'], ['math', 'ready']]);
  });

  it('ends a server still starting on close, without a retry and without waiting for its deadline', async () => {
    multi = MultiMcp.launch([SLOW, MATH]);
    await multi.awaitTools(['math']);
    await multi.close();
    // Would wait out SLOW_START_MS (past the test's timeout) if close left the start running or retried it.
    expect(await multi.awaitTools(['slow'])).toEqual([]);
    expect(multi.statuses().find((s) => s.id === 'slow')).toMatchObject({ state: 'failed', error: 'closed before it started' });
  });

  it('ends a server closed before its process was even spawned', async () => {
    multi = MultiMcp.launch([SLOW]);
    await multi.close();
    expect(await multi.awaitTools()).toEqual([]);
  });

  it('offers the tools and instructions cached by an earlier run before the server is up, keyed by how it starts', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'cortex-cache-')), 'mcp-tools.json');
    const tasks = server('tasks', [BAD, 'tasks']);
    const first = await MultiMcp.start([tasks], { cache: await ToolCache.load(file) });
    await first.close();

    multi = MultiMcp.launch([{ ...tasks, id: 'renamed' }], { cache: await ToolCache.load(file) });
    expect(multi.statuses()[0]!.state).toBe('starting');
    expect(multi.listTools().map((t) => [t.server, t.name])).toEqual([['renamed', 'ping']]);
    expect(multi.summaries()[0]).toMatchObject({ tools: ['ping'], instructions: 'Use ping before anything else.' });

    const other = MultiMcp.launch([server('tasks', [BAD, 'silent'], { startTimeoutMs: SLOW_START_MS })], { cache: await ToolCache.load(file) });
    expect(other.listTools()).toEqual([]);
    await other.close();
  });

  it('with lazy, starts a server whose tools are cached only when a question needs it', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'cortex-cache-')), 'mcp-tools.json');
    const first = await MultiMcp.start([MATH], { cache: await ToolCache.load(file) });
    await first.close();

    multi = MultiMcp.launch([MATH], { cache: await ToolCache.load(file), lazy: true });
    expect(multi.pidOf('math')).toBeNull();
    expect(multi.listTools().map((t) => t.name)).toContain('add');
    const tools = await multi.awaitTools(['math']);
    expect(multi.pidOf('math')).not.toBeNull();
    expect(tools.map((t) => t.name)).toContain('add');
    const sum = await multi.callTool('math', 'add', { a: 2, b: 3 });
    expect(JSON.parse((sum.content as Array<{ text: string }>)[0]!.text).result).toBe(5);
  });

  it('with lazy, starts a cached server on its first tool call', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'cortex-cache-')), 'mcp-tools.json');
    await (await MultiMcp.start([MATH], { cache: await ToolCache.load(file) })).close();
    multi = MultiMcp.launch([MATH], { cache: await ToolCache.load(file), lazy: true });
    expect(multi.pidOf('math')).toBeNull();
    const sum = await multi.callTool('math', 'add', { a: 1, b: 1 });
    expect(JSON.parse((sum.content as Array<{ text: string }>)[0]!.text).result).toBe(2);
  });

  it('answers from the cache for a server the caller trusts to start soon, without starting it; its first call starts it', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'cortex-cache-')), 'mcp-tools.json');
    await (await MultiMcp.start([MATH], { cache: await ToolCache.load(file) })).close();
    multi = MultiMcp.launch([MATH], { cache: await ToolCache.load(file), lazy: true });
    const tools = await multi.awaitTools(['math'], undefined, new Set(['math']));
    expect(tools.map((t) => t.name)).toContain('add');
    expect(multi.pidOf('math')).toBeNull();
    const sum = await multi.callTool('math', 'add', { a: 2, b: 2 });
    expect(JSON.parse((sum.content as Array<{ text: string }>)[0]!.text).result).toBe(4);
  });

  it('a cached server that then cannot start fails its calls with the reason', async () => {
    const cache = await ToolCache.load(join(mkdtempSync(join(tmpdir(), 'cortex-cache-')), 'mcp-tools.json'));
    // A server that never finishes starting, with a tool list cached as an earlier run would have left it.
    const stuck = server('stuck', [BAD, 'silent'], { startTimeoutMs: 1_000 });
    await cache.put(stuck, { serverVersion: 'stuck@1', instructions: '', tools: [{ server: 'stuck', name: 'ping', remoteName: 'ping', description: 'Ping.', inputSchema: { type: 'object' } }] });
    multi = MultiMcp.launch([stuck], { cache, lazy: true });
    expect((await multi.awaitTools(['stuck'], undefined, new Set(['stuck']))).map((t) => t.name)).toEqual(['ping']);
    await expect(multi.callTool('stuck', 'ping', {})).rejects.toThrow(/stuck.*did not start/s);
  });
});

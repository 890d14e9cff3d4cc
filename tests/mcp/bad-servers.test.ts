// Servers that misbehave on start: each gets a one-line reason, bounded by its deadline, and the others go on.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerSpec } from '../../src/config/server-spec.js';
import { MultiMcp } from '../../src/mcp/multi-mcp.js';
import { PROJECT_ROOT, builtPath } from '../../src/paths.js';

const BAD = join(PROJECT_ROOT, 'tests', 'fixtures', 'bad-server.mjs');
const starts = mkdtempSync(join(tmpdir(), 'cortex-bad-'));
/** Deadline of the servers that never answer: short, so the test is quick; the point is that it is bounded. */
const SHORT_START_MS = 1_500;

const bad = (mode: string, startTimeoutMs?: number): ServerSpec => ({
  id: mode,
  command: process.execPath,
  args: [BAD, mode, join(starts, mode)],
  cwd: PROJECT_ROOT,
  env: {},
  description: `${mode} server`,
  capabilities: [],
  ...(startTimeoutMs ? { startTimeoutMs } : {}),
});

describe('MultiMcp with servers that misbehave', () => {
  let multi: MultiMcp;
  const reported = new Map<string, string>();

  beforeAll(async () => {
    multi = await MultiMcp.start(
      [
        { ...bad('math'), args: [builtPath('mcp-servers/math/main.js')] },
        bad('silent', SHORT_START_MS),
        bad('garbage', SHORT_START_MS),
        bad('exits'),
        bad('flood'),
        bad('many-tools'),
        bad('huge-list'),
        bad('tasks'),
      ],
      { onFailure: (id, reason) => reported.set(id, reason) },
    );
  });
  afterAll(() => multi.close());

  const errorOf = (id: string) => multi.statuses().find((s) => s.id === id)!.error ?? '';

  it('reports a server that never answers initialize, after its deadline, without a retry', () => {
    expect(errorOf('silent')).toBe('MCP server "silent": could not start: did not answer within 2 s (raise its `timeout` if it installs slowly)');
    expect(readFileSync(join(starts, 'silent'), 'utf8')).toBe('silent\n');
  });

  it('says a server that prints garbage on stdout is not speaking JSON-RPC', () => {
    expect(errorOf('garbage')).toMatch(/did not answer within 2 s .*; its stdout is not JSON-RPC \(servers must log to stderr\)$/);
  });

  it('quotes the real error from the stderr of a server that exits at once, not npm noise, and retried it once', () => {
    expect(errorOf('exits')).toBe('MCP server "exits": could not start: exited before it answered; its stderr: Error: API_KEY is not set; get one at https://example.com');
    expect(readFileSync(join(starts, 'exits'), 'utf8')).toBe('exits\nexits\n');
    expect(reported.get('exits')).toBe(errorOf('exits'));
  });

  it('serves a server that floods stderr', async () => {
    expect(multi.statuses().find((s) => s.id === 'flood')!.state).toBe('ready');
    expect((await multi.callTool('flood', 'ping', {})).content[0]!.text).toBe('pong');
  });

  it('refuses a server listing 10,000 tools and one sending a 20 MB list, in one line each', () => {
    expect(errorOf('many-tools')).toBe('MCP server "many-tools": could not start: lists more than 1000 tools');
    expect(errorOf('huge-list')).toBe('MCP server "huge-list": could not start: sent a message larger than 16 MB');
    for (const s of multi.statuses()) expect(s.error ?? '').not.toContain('\n');
  });

  it('hides task-only tools from the model and keeps the server instructions', () => {
    expect(multi.listTools(['tasks']).map((t) => t.remoteName)).toEqual(['ping']);
    expect(multi.summaries().find((s) => s.id === 'tasks')).toMatchObject({ tools: ['ping'], instructions: 'Use ping before anything else.' });
  });

  it('keeps the good server working', async () => {
    expect(multi.statuses().find((s) => s.id === 'math')!.state).toBe('ready');
    expect(JSON.parse((await multi.callTool('math', 'add', { a: 2, b: 3 })).content[0]!.text!).result).toBe(5);
  });
});

// Remote servers: server-everything over Streamable HTTP, and over the older SSE transport reached by the fallback.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ServerSpec } from '../../src/config/server-spec.js';
import { MultiMcp } from '../../src/mcp/multi-mcp.js';
import { PROJECT_ROOT } from '../../src/paths.js';

const EVERYTHING = join(PROJECT_ROOT, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
const children: ChildProcess[] = [];

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
    probe.on('error', reject);
  });
}

/** Starts server-everything with the given transport and resolves once it says it listens. */
async function startEverything(transport: 'streamableHttp' | 'sse'): Promise<number> {
  const port = await freePort();
  const child = spawn(process.execPath, [EVERYTHING, transport], { env: { PATH: process.env.PATH, PORT: String(port) }, stdio: ['ignore', 'ignore', 'pipe'] });
  children.push(child);
  await new Promise<void>((resolve, reject) => {
    let seen = '';
    child.stderr!.on('data', (d: Buffer) => {
      seen += d.toString();
      if (/listening on port|running on port/i.test(seen)) resolve();
    });
    child.on('exit', (code) => reject(new Error(`server-everything ${transport} exited (${code}): ${seen}`)));
  });
  return port;
}

const remote = (id: string, url: string): ServerSpec => ({
  id,
  transport: 'http',
  url,
  headers: { 'X-Client': 'cortex-test' },
  command: '',
  args: [],
  cwd: PROJECT_ROOT,
  env: {},
  description: 'everything, remote',
  capabilities: [],
});

afterAll(() => {
  for (const child of children) child.kill();
});

describe('remote MCP servers', () => {
  it('calls a tool over Streamable HTTP', async () => {
    const port = await startEverything('streamableHttp');
    const multi = await MultiMcp.start([remote('everything', `http://127.0.0.1:${port}/mcp`)]);
    try {
      expect(multi.statuses()[0]).toMatchObject({ state: 'ready', tools: expect.arrayContaining(['get-sum', 'echo']) });
      const res = await multi.callTool('everything', 'get-sum', { a: 2, b: 3 });
      expect(res.content[0]!.text).toContain('5');
    } finally {
      await multi.close();
    }
  });

  it('falls back to SSE when a server configured as http only speaks the older SSE transport', async () => {
    const port = await startEverything('sse');
    const multi = await MultiMcp.start([remote('legacy', `http://127.0.0.1:${port}/sse`)]);
    try {
      expect(multi.statuses()[0]!.state).toBe('ready');
      const res = await multi.callTool('legacy', 'echo', { message: 'over sse' });
      expect(res.content[0]!.text).toContain('over sse');
    } finally {
      await multi.close();
    }
  });

  it('reports a remote server that is not there in one line', async () => {
    const port = await freePort();
    const multi = await MultiMcp.start([{ ...remote('gone', `http://127.0.0.1:${port}/mcp`), startTimeoutMs: 5_000 }]);
    expect(multi.statuses()[0]!.error).toMatch(/^MCP server "gone": could not start: .*(fetch failed|ECONNREFUSED)/);
    expect(multi.statuses()[0]!.error).not.toContain('\n');
    await multi.close();
  });
});

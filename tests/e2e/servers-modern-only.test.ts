// `cortex servers` with a server that speaks only protocol 2026-07-28, over stdio and Streamable HTTP: listed, never a hang.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/paths.js';
import { runCli } from '../cli/run-cli.js';

const MODERN_ONLY = join(PROJECT_ROOT, 'tests', 'fixtures', 'modern-only-server.mjs');
const children: ChildProcess[] = [];

afterAll(() => {
  for (const child of children) child.kill();
});

/** The modern-only fixture over Streamable HTTP in its own process; resolves with its port once it listens. */
function startModernHttp(): Promise<number> {
  const child = spawn(process.execPath, [MODERN_ONLY, '--http', '0'], { stdio: ['ignore', 'pipe', 'ignore'] });
  children.push(child);
  return new Promise((resolve, reject) => {
    child.stdout!.once('data', (d: Buffer) => resolve(Number(d.toString().trim())));
    child.on('exit', (code) => reject(new Error(`modern-only server exited (${code})`)));
  });
}

describe('cortex servers with a server that speaks only 2026-07-28', () => {
  it('lists it as ready over each transport, speaking 2026-07-28', async () => {
    const port = await startModernHttp();
    const dir = mkdtempSync(join(tmpdir(), 'cortex-modern-'));
    const profile = join(dir, 'profiles.yaml');
    writeFileSync(
      profile,
      [
        'mcp_servers:',
        '  - id: modern-stdio',
        `    command: ${JSON.stringify(process.execPath)}`,
        `    args: [${JSON.stringify(MODERN_ONLY)}]`,
        '  - id: modern-http',
        `    url: http://127.0.0.1:${port}/mcp`,
        '',
      ].join('\n'),
    );
    const run = await runCli(['--profile', profile, 'servers', 'list']);
    for (const id of ['modern-stdio', 'modern-http']) expect(run.stdout).toMatch(new RegExp(`${id} +ready +3 tools: add, greet, count_slowly\n +roots offered: .*; MCP 2026-07-28\n`));
    expect(run.code).toBe(0);
    const json = JSON.parse((await runCli(['--profile', profile, 'servers', 'list', '--json'])).stdout);
    expect(json.map((s: { protocolVersion?: string }) => s.protocolVersion)).toEqual(['2026-07-28', '2026-07-28']);
  });
});

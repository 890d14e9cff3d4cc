// `cortex servers test` on a 2026-07-28 server whose tool answers with a task (tasks extension): the result comes back like any other.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/paths.js';
import { runCli } from '../cli/run-cli.js';

const TASKS_SERVER = join(PROJECT_ROOT, 'tests', 'fixtures', 'modern-tasks-server.mjs');
const children: ChildProcess[] = [];

afterAll(() => {
  for (const child of children) child.kill();
});

/** The fixture over Streamable HTTP in its own process; resolves with its port once it listens. */
function startHttp(): Promise<number> {
  const child = spawn(process.execPath, [TASKS_SERVER, '--http', '0'], { stdio: ['ignore', 'pipe', 'ignore'] });
  children.push(child);
  return new Promise((resolve, reject) => {
    child.stdout!.once('data', (d: Buffer) => resolve(Number(d.toString().trim())));
    child.on('exit', (code) => reject(new Error(`tasks server exited (${code})`)));
  });
}

describe('cortex servers test with a 2026-07-28 server that runs its tool as a task', () => {
  it('gets the task\'s result over each transport, and the server saw it polled to the end', async () => {
    const port = await startHttp();
    const dir = mkdtempSync(join(tmpdir(), 'cortex-tasks-'));
    const profile = join(dir, 'profiles.yaml');
    writeFileSync(
      profile,
      [
        'paths:',
        `  cache: ${join(dir, 'cache')}`,
        'mcp_servers:',
        '  - id: tasks-stdio',
        `    command: ${JSON.stringify(process.execPath)}`,
        `    args: [${JSON.stringify(TASKS_SERVER)}]`,
        '  - id: tasks-http',
        `    url: http://127.0.0.1:${port}/mcp`,
        '',
      ].join('\n'),
    );
    for (const id of ['tasks-stdio', 'tasks-http']) {
      const run = await runCli(['--profile', profile, 'servers', 'test', id]);
      expect(run.stdout).toMatch(/pass\s+double .*\{"n":21\} → 42/);
      expect(run.stdout).toMatch(/pass\s+task_log .*double:working.*double:completed/);
      expect(run.code).toBe(0);
    }
  });
});

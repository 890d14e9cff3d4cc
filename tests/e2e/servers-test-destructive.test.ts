// `cortex servers test` on a server with a destructive tool: only read-only tools unless --all, and then only as `ask` would allow.
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/paths.js';
import { runCli } from '../cli/run-cli.js';

const SERVER = join(PROJECT_ROOT, 'tests', 'fixtures', 'destructive-server.mjs');
let profile: string;
let marker: string;
beforeEach(() => {
  const dir = mkdtempSync(join(tmpdir(), 'cortex-danger-'));
  marker = join(dir, 'reset-called');
  profile = join(dir, 'profiles.yaml');
  writeFileSync(profile, `paths:\n  cache: ${join(dir, 'cache')}\nmcp_servers:\n  - id: danger\n    command: ${process.execPath}\n    args: [${SERVER}]\n    env: {DANGER_MARKER: ${marker}}\n    timeout: 30\n`);
});

describe('cortex servers test with a destructive tool', () => {
  it('calls only the read-only tools, fills a required property from its schema default, and skips the destructive one', async () => {
    const run = await runCli(['--profile', profile, 'servers', 'test', 'danger']);
    expect(run.stdout).toMatch(/pass\s+status/);
    expect(run.stdout).toMatch(/pass\s+greet .*\{"name":"world"\} → .*hello world/);
    expect(run.stdout).toMatch(/skipped\s+reset_all .*not marked read-only.*--all/);
    expect(run.stdout).toContain('2 passed, 0 failed, 0 untested, 1 skipped');
    expect(run.code).toBe(0);
    expect(existsSync(marker)).toBe(false);
  });

  it('with --all and nobody to ask, refuses the destructive call as ask would', async () => {
    const run = await runCli(['--profile', profile, 'servers', 'test', 'danger', '--all', '--json']);
    const reset = JSON.parse(run.stdout).tools.find((t: { tool: string }) => t.tool === 'reset_all');
    expect(reset).toMatchObject({ status: 'skipped', detail: expect.stringMatching(/nobody can be asked/) });
    expect(existsSync(marker)).toBe(false);
  });

  it('with --all and nobody to ask, tells the person why in plain words, not the model\'s instructions', async () => {
    const run = await runCli(['--profile', profile, 'servers', 'test', 'danger', '--all']);
    expect(run.stdout).toMatch(/skipped\s+reset_all .*not called: it needs the user's approval \(it may change or delete data\) and nobody can be asked: cortex is not running interactively\.\n/);
    expect(run.stdout).not.toMatch(/Do not call it again/i);
    expect(run.stdout).toContain('(--yes calls the tools that need your approval without asking)');
    expect(existsSync(marker)).toBe(false);
  });

  it('with --all --yes, calls it', async () => {
    const run = await runCli(['--profile', profile, '--yes', 'servers', 'test', 'danger', '--all']);
    expect(run.stdout).toMatch(/pass\s+reset_all/);
    expect(existsSync(marker)).toBe(true);
  });
});

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';

function tempFile(name: string, text: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'cortex-cli-')), name);
  writeFileSync(file, text);
  return file;
}

describe('cortex servers', () => {
  it('lists the math server as ready with its tools', async () => {
    const run = await runCli(['servers', 'list', '--json']);
    expect(run.code).toBe(0);
    const statuses = JSON.parse(run.stdout);
    const math = statuses.find((s: { id: string }) => s.id === 'math');
    expect(math).toMatchObject({ state: 'ready' });
    expect(math.tools).toHaveLength(15);
  });

  it('checks every math tool with its example arguments', async () => {
    const run = await runCli(['servers', 'test', 'math']);
    expect(run.stdout).toMatch(/pass strings_to_chars_to_int .*\[73,78,68,73,65\]/);
    expect(run.stdout).toContain('15 passed, 0 failed');
    expect(run.code).toBe(0);
  });

  it('fails the check and exits 1 when a server cannot start', async () => {
    const profile = tempFile('p.yaml', 'mcp_servers:\n  - id: ghost\n    script: no/such/server.js\n');
    const run = await runCli(['--profile', profile, 'servers', 'test', 'ghost']);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/ghost: failed to start: .*could not start/);
  });

  it('names the unknown server and the configured ones', async () => {
    const run = await runCli(['servers', 'test', 'nope']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/no MCP server "nope" in .*profiles\.yaml; configured: math/);
  });
});

describe('cortex with a bad config', () => {
  it('prints one line naming file, line and key, exits 2, and shows no stack trace', async () => {
    const profile = tempFile('profiles.yaml', 'sandbox:\n  timeout_ms: soon\n');
    const run = await runCli(['--profile', profile, 'servers', 'list']);
    expect(run.code).toBe(2);
    expect(run.stderr.trim()).toBe(`cortex: ${profile}:2: sandbox.timeout_ms: expected a whole number from 100 to 600000`);
    expect(run.stdout).toBe('');
  });

  it('says which file is missing', async () => {
    const run = await runCli(['--profile', '/nonexistent/profiles.yaml', 'servers']);
    expect(run.code).toBe(2);
    expect(run.stderr.trim()).toBe('cortex: /nonexistent/profiles.yaml: file not found');
  });

  it('rejects an unknown key in models.yaml given with --models', async () => {
    const models = tempFile('models.yaml', 'models:\n  local:\n    type: ollama\n    model: m\n    temprature: 0.2\n');
    const run = await runCli(['--models', models, 'servers']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`${models}:5: models.local.temprature: unknown key (check its spelling)`);
  });

  it('exits 2 on an unknown command', async () => {
    const run = await runCli(['frobnicate']);
    expect(run.code).toBe(2);
  });
});

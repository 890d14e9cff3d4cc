import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { PROJECT_ROOT } from '../../src/paths.js';
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

  it('checks every read-only math tool with its example arguments, and skips the one that writes a file', async () => {
    const run = await runCli(['servers', 'test', 'math']);
    expect(run.stdout).toMatch(/pass strings_to_chars_to_int .*\[73,78,68,73,65\]/);
    expect(run.stdout).toMatch(/skipped create_thumbnail/);
    expect(run.stdout).toContain('14 passed, 0 failed, 0 untested, 1 skipped');
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

describe('cortex --mcp-config', () => {
  const ref = (name: string) => join(PROJECT_ROOT, 'node_modules', '@modelcontextprotocol', `server-${name}`, 'dist', 'index.js');
  const claudeDesktop = () =>
    tempFile(
      'claude_desktop_config.json',
      JSON.stringify(
        {
          mcpServers: {
            'sequential-thinking': { command: 'node', args: [ref('sequential-thinking')] },
            'memory.v2': { command: 'node', args: [ref('memory')], env: { MEMORY_FILE_PATH: join(tmpdir(), 'cortex-memory-test.jsonl') } },
            broken: { command: 'node', args: 'not-a-list' },
          },
          globalShortcut: 'Ctrl+Space',
        },
        null,
        2,
      ),
    );

  it('adds the servers of a pasted Claude Desktop config; a broken entry and an unused key are one-line warnings', async () => {
    const file = claudeDesktop();
    const run = await runCli(['--mcp-config', file, 'servers', 'list', '--json']);
    const statuses = JSON.parse(run.stdout) as Array<{ id: string; state: string; tools: string[]; error?: string }>;
    const byId = Object.fromEntries(statuses.map((s) => [s.id, s]));
    expect(byId.math!.state).toBe('ready');
    expect(byId['sequential-thinking']).toMatchObject({ state: 'ready', tools: ['sequentialthinking'] });
    expect(byId['memory.v2']!.state).toBe('ready');
    expect(byId.broken).toMatchObject({ state: 'failed', error: `${file}:20: mcpServers.broken.args: Invalid input: expected array, received string` });
    expect(run.stderr).toContain(`warning: ${file}:23: globalShortcut is not used by cortex (ignored)`);
    expect(run.stderr).toContain(`warning: MCP server "broken" is disabled: ${file}:20:`);
    expect(run.code).toBe(1);
  });

  it('exits 1 and says so when nothing could be tested, and tests a tool given --args', async () => {
    const file = claudeDesktop();
    const untested = await runCli(['--mcp-config', file, 'servers', 'test', 'sequential-thinking']);
    expect(untested.stdout).toMatch(/untested sequentialthinking .*needs thought, nextThoughtNeeded, thoughtNumber, totalThoughts/);
    expect(untested.stdout).toContain('0 passed, 0 failed, 1 untested, 0 skipped — nothing was tested');
    expect(untested.code).toBe(1);

    const args = JSON.stringify({ sequentialthinking: { thought: 'First', nextThoughtNeeded: false, thoughtNumber: 1, totalThoughts: 1 } });
    const tested = await runCli(['--mcp-config', file, 'servers', 'test', 'sequential-thinking', '--args', args]);
    expect(tested.stdout).toMatch(/pass sequentialthinking/);
    expect(tested.stdout).toContain('1 passed, 0 failed, 0 untested, 0 skipped');
    expect(tested.code).toBe(0);
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
    expect(run.stderr).toContain(`${models}:5: models.local.temprature: unknown key (did you mean temperature?)`);
  });

  it('exits 2 on an unknown command', async () => {
    const run = await runCli(['frobnicate']);
    expect(run.code).toBe(2);
  });
});

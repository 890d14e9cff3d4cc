import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRootOf, readClientConfig, readProfileServers, type EntryContext } from '../../src/config/mcp-entries.js';
import { parseProfile } from '../../src/config/profiles.js';
import { ConfigError } from '../../src/errors.js';
import { PROJECT_ROOT, builtPath } from '../../src/paths.js';

const DIR = join(PROJECT_ROOT, 'tests', 'fixtures', 'mcp-configs');
const OWN = { math: { CORTEX_X: 'm' }, documents: { CORTEX_X: 'd', GEMINI_API_KEY: 'k' }, websearch: { CORTEX_X: 'w' }, history: { CORTEX_X: 'h' } };

function context(file: string, env: NodeJS.ProcessEnv = {}): EntryContext {
  return { file, root: projectRootOf(file), env, own: OWN, startTimeoutMs: 90_000 };
}

function fixture(name: string, env: NodeJS.ProcessEnv = {}) {
  const file = join(DIR, name);
  return readClientConfig(readFileSync(file, 'utf8'), context(file, env));
}

describe('readClientConfig', () => {
  it('loads a pasted Claude Desktop config, warning about the keys it does not use', () => {
    const { specs, disabled, warnings } = fixture('claude_desktop_config.json');
    expect(specs.map((s) => s.id)).toEqual(['filesystem', 'memory', 'sequential-thinking']);
    expect(specs[1]).toMatchObject({
      transport: 'stdio',
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-memory'],
      env: { MEMORY_FILE_PATH: '/path/to/custom/memory.jsonl' },
      cwd: DIR,
      startTimeoutMs: 90_000,
      source: `${join(DIR, 'claude_desktop_config.json')}:12`,
    });
    expect(disabled).toEqual([]);
    expect(warnings).toEqual([`${join(DIR, 'claude_desktop_config.json')}:24: globalShortcut is not used by cortex (ignored)`]);
  });

  it('loads a Claude Code .mcp.json: stdio, http and sse, ${VAR:-default}, numeric env values', () => {
    const { specs, disabled } = fixture('.mcp.json', { API_KEY: 'abc' });
    expect(specs.find((s) => s.id === 'everything')).toMatchObject({ transport: 'stdio', env: { API_KEY: 'dev-key', PORT: '3001' } });
    expect(specs.find((s) => s.id === 'api-server')).toMatchObject({
      transport: 'http',
      url: 'https://api.example.com/mcp',
      headers: { Authorization: 'Bearer abc' },
    });
    expect(specs.find((s) => s.id === 'events')).toMatchObject({ transport: 'sse', url: 'https://mcp.example.com/sse' });
    expect(disabled).toEqual([]);
  });

  it('disables only the server whose variable is not set, with file, line and variable named', () => {
    const { specs, disabled } = fixture('.mcp.json', {});
    expect(specs.map((s) => s.id)).toEqual(['everything', 'events']);
    expect(disabled).toEqual([
      { id: 'api-server', kind: 'broken', reason: `${join(DIR, '.mcp.json')}:15: mcpServers.api-server.headers: \${API_KEY} is not set in the environment (give a default with \${NAME:-value})`, source: `${join(DIR, '.mcp.json')}:12` },
    ]);
  });

  it('loads a VS Code mcp.json with comments and trailing commas: servers, envFile, ${workspaceFolder}, inputs refused per server', () => {
    const { specs, disabled, warnings } = fixture('.vscode/mcp.json');
    expect(warnings).toEqual([]);
    const fs = specs.find((s) => s.id === 'fs')!;
    // .vscode/ belongs to the folder above it.
    expect(fs.args).toEqual(['-y', '@modelcontextprotocol/server-filesystem', DIR]);
    expect(fs.env).toEqual({ FS_LOG_LEVEL: 'debug', TOKEN: 'quoted value' });
    expect(specs.find((s) => s.id === 'github')).toMatchObject({ transport: 'http', url: 'https://api.githubcopilot.com/mcp/' });
    expect(disabled).toEqual([
      expect.objectContaining({ id: 'Perplexity', kind: 'broken', reason: expect.stringMatching(/mcp\.json:\d+: servers\.Perplexity\.env: \$\{input:perplexity-key\} asks for a value cortex cannot prompt for/) }),
    ]);
  });

  it('loads a Cursor mcp.json: any id, ${env:VAR}, timeout in seconds, disabled, one broken entry, unused keys warned', () => {
    const file = join(DIR, '.cursor/mcp.json');
    const { specs, disabled, warnings } = fixture('.cursor/mcp.json', { CURSOR_TEST_KEY: 'ck' });
    const odd = specs.find((s) => s.id === 'server.with.dots/and slashes')!;
    expect(odd).toMatchObject({ command: 'node', args: [join(DIR, 'tools/server.js')], env: { API_KEY: 'ck', RETRIES: '3', VERBOSE: 'true' }, startTimeoutMs: 120_000 });
    expect(specs.find((s) => s.id === 'remote')).toMatchObject({ transport: 'http', url: 'http://localhost:3000/mcp', headers: { API_KEY: 'value' } });
    expect(disabled).toEqual([
      { id: 'off', kind: 'disabled', reason: `${file}:16: mcpServers.off: disabled in the config`, source: `${file}:16` },
      { id: 'broken', kind: 'broken', reason: `${file}:22: mcpServers.broken.command: Invalid input: expected string, received array`, source: `${file}:21` },
    ]);
    expect(warnings).toEqual([
      `${file}:9: mcpServers.server.with.dots/and slashes.autoApprove is not used by cortex (ignored)`,
      `${file}:10: mcpServers.server.with.dots/and slashes.alwaysAllow is not used by cortex (ignored)`,
    ]);
  });

  it('gives our own servers their settings and nobody else any', () => {
    const file = join(PROJECT_ROOT, 'x.json');
    const text = JSON.stringify({
      mcpServers: { docs: { command: 'node', args: [builtPath('mcp-servers/documents/main.js')] }, fs: { command: 'npx', args: ['x'], env: { A: '1' } } },
    });
    const { specs } = readClientConfig(text, context(file));
    expect(specs[0]!.env).toEqual(OWN.documents);
    expect(specs[1]!.env).toEqual({ A: '1' });
  });

  it('refuses a file that holds no server map, or is not JSON', () => {
    expect(() => readClientConfig('{"foo": 1}', context('/x/a.json'))).toThrow(new ConfigError('/x/a.json', '', 'holds no "mcpServers" (or VS Code "servers") object'));
    expect(() => readClientConfig('{"mcpServers": {', context('/x/a.json'))).toThrow(ConfigError);
  });

  it('refuses an unknown transport and a remote server without a url, one server at a time', () => {
    const text = '{"mcpServers": {"a": {"type": "websocket", "url": "ws://x"}, "b": {"type": "http"}, "c": {"command": "ok"}}}';
    const { specs, disabled } = readClientConfig(text, context('/x/a.json'));
    expect(specs.map((s) => s.id)).toEqual(['c']);
    expect(disabled.map((d) => d.reason)).toEqual([
      '/x/a.json:1: mcpServers.a.type: "websocket" is not a transport; use stdio, http or sse',
      '/x/a.json:1: mcpServers.b.url: a http server needs a url',
    ]);
  });

  it('reads a timeout above an hour as milliseconds, and bounds it', () => {
    const text = '{"mcpServers": {"a": {"command": "x", "timeout": 30000}, "b": {"command": "x", "timeout": 99999999}}}';
    expect(readClientConfig(text, context('/x/a.json')).specs.map((s) => s.startTimeoutMs)).toEqual([30_000, 600_000]);
  });
});

describe('readProfileServers', () => {
  it('disables a broken mcp_servers entry with its line and keeps the others', () => {
    const text = `mcp_servers:\n  - id: ok\n    command: x\n  - id: both\n    script: a.js\n    command: node\n  - id: m\n    script: ${builtPath('mcp-servers/math/main.js')}\n`;
    const file = '/p/config/profiles.yaml';
    const { specs, disabled } = readProfileServers(parseProfile(text, file), text, context(file));
    expect(specs.map((s) => s.id)).toEqual(['ok', 'm']);
    expect(specs[1]).toMatchObject({ command: process.execPath, env: OWN.math, cwd: '/p' });
    expect(disabled).toEqual([
      { id: 'both', kind: 'broken', reason: '/p/config/profiles.yaml:6: mcp_servers.1.command: give exactly one of `command` (with `args`) or `script` (a .js file run with this Node)', source: '/p/config/profiles.yaml:4' },
    ]);
  });
});

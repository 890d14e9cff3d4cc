import { describe, expect, it } from 'vitest';
import { parseProfile } from '../../src/config/profiles.js';
import { ConfigError } from '../../src/errors.js';

const FILE = 'config/profiles.yaml';

function errorOf(text: string): ConfigError {
  try {
    parseProfile(text, FILE);
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

describe('parseProfile', () => {
  it('fills every section with defaults from an empty file', () => {
    const p = parseProfile('', FILE);
    expect(p.strategy).toEqual({
      planning_mode: 'conservative',
      exploration_mode: 'parallel',
      memory_fallback_enabled: true,
      max_steps: 3,
      max_lifelines_per_step: 3,
    });
    expect(p.sandbox).toMatchObject({ max_tool_calls_per_plan: 5, timeout_ms: 30_000, memory_mb: 64 });
    expect(p.paths).toEqual({ documents: 'documents', memory: 'memory', faiss_index: 'faiss_index', cache: 'cache', skills: 'memory/skills' });
    expect(p.mcp).toEqual({ start_timeout_ms: 90_000 });
    expect(p.llm).toEqual({ text_generation: 'auto', embedding: 'builtin', vision: 'none' });
  });

  it('names the file, line and key of a value of the wrong type', () => {
    const err = errorOf('sandbox:\n  timeout_ms: 1000\n  memory_mb: lots\n');
    expect(err.message).toBe('config/profiles.yaml:3: sandbox.memory_mb: expected a whole number from 8 to 4096');
    expect(err.key).toBe('sandbox.memory_mb');
  });

  it('rejects a misspelt key instead of ignoring it', () => {
    const err = errorOf('strategy:\n  max_stpes: 3\n');
    expect(err.message).toBe('config/profiles.yaml:2: strategy.max_stpes: unknown key (did you mean max_steps?)');
  });

  it('refuses an infinite limit, which would silently lift a cap', () => {
    expect(errorOf('sandbox:\n  max_tool_calls_per_plan: .inf\n').key).toBe('sandbox.max_tool_calls_per_plan');
    expect(errorOf('strategy:\n  max_steps: 1000\n').message).toContain('from 1 to 20');
  });

  it('takes a client ID metadata document only at an https URL with a path', () => {
    expect(parseProfile('mcp:\n  oauth_client_metadata_url: https://me.example/cortex.json\n', FILE).mcp.oauth_client_metadata_url).toBe('https://me.example/cortex.json');
    expect(errorOf('mcp:\n  oauth_client_metadata_url: http://me.example/cortex.json\n').message).toBe(
      'config/profiles.yaml:2: mcp.oauth_client_metadata_url: expected an https:// URL with a path',
    );
  });

  it('rejects an unknown planning mode with the allowed values', () => {
    expect(errorOf('strategy:\n  planning_mode: reckless\n').message).toMatch(/strategy\.planning_mode: .*"conservative".*"exploratory"/);
  });

  it('gives the line and column of a YAML syntax error, and the key being written there', () => {
    expect(errorOf('mcp_servers: [\n').message).toMatch(/^config\/profiles\.yaml:\d+: mcp_servers: column \d+: /);
    expect(errorOf('sandbox:\n  timeout_ms: 100\n  memory_mb: "64\n').message).toMatch(/^config\/profiles\.yaml:\d+: sandbox\.memory_mb: column \d+: /);
    expect(errorOf('"open\n').key).toBe('');
  });

  it('leaves server entries to be checked one by one, so one broken entry cannot refuse the whole profile', () => {
    const p = parseProfile('mcp_servers:\n  - id: m\nmcpServers:\n  "my.server/x y": {command: npx, autoApprove: []}\n', FILE);
    expect(p.mcp_servers).toEqual([{ id: 'm' }]);
    expect(p.mcpServers).toEqual({ 'my.server/x y': { command: 'npx', autoApprove: [] } });
  });

  it('stops a billion-laughs alias bomb quickly with a config error', () => {
    const lines = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
    for (let i = 1; i < 9; i++) {
      const prev = String.fromCharCode(96 + i);
      const cur = String.fromCharCode(97 + i);
      lines.push(`${cur}: &${cur} [${Array(9).fill(`*${prev}`).join(',')}]`);
    }
    const err = errorOf(lines.join('\n'));
    expect(err.file).toBe(FILE);
    // The first alias naming a node that holds aliases itself: *b, in c on line 3.
    expect(err.message).toBe(`${FILE}:3: c: its YAML aliases expand past 100 nodes (a "billion laughs" file?); write the values out instead`);
  });
});

describe('a misspelt profile key', () => {
  it('is named with its file, line and the nearest key the profile knows there', () => {
    expect(() => parseProfile('memory:\n  conversation_char: 4000\n', 'p.yaml')).toThrow('p.yaml:2: memory.conversation_char: unknown key (did you mean conversation_chars?)');
    expect(() => parseProfile('stratgy:\n  max_steps: 2\n', 'p.yaml')).toThrow('stratgy: unknown key (did you mean strategy?)');
  });
});

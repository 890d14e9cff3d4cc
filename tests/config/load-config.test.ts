import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { PROJECT_ROOT } from '../../src/paths.js';

function project(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'cortex-config-'));
  mkdirSync(join(root, 'config'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(root, 'config', name), text);
  return root;
}

describe('loadConfig', () => {
  it('loads the shipped profile and models', () => {
    const config = loadConfig();
    expect(config.servers.map((s) => s.id)).toContain('math');
    expect(Object.keys(config.models.models)).toEqual(['gemini', 'ollama']);
    expect(config.paths.documents).toBe(join(PROJECT_ROOT, 'documents'));
  });

  it('resolves relative paths and scripts against the folder above the profile', () => {
    const root = project({
      'p.yaml': 'paths:\n  memory: mem\nmcp_servers:\n  - id: s\n    script: srv/main.js\n    env: {TOKEN: abc}\n',
    });
    const config = loadConfig({ profilePath: join(root, 'config', 'p.yaml') });
    expect(config.paths.memory).toBe(join(root, 'mem'));
    expect(config.servers[0]).toMatchObject({
      id: 's',
      command: process.execPath,
      args: [join(root, 'srv/main.js')],
      cwd: root,
      env: { TOKEN: 'abc' },
    });
  });

  it('turns mcpServers entries into servers beside mcp_servers', () => {
    const root = project({ 'profiles.yaml': 'mcpServers:\n  echo: {command: echo-server, args: [--x]}\n' });
    const config = loadConfig({ profilePath: join(root, 'config', 'profiles.yaml') });
    expect(config.servers).toEqual([
      { id: 'echo', command: 'echo-server', args: ['--x'], cwd: root, env: expect.any(Object), description: '', capabilities: [] },
    ]);
  });

  it("passes security.block_private_network to every server unless the server's env overrides it", () => {
    const root = project({
      'profiles.yaml':
        'security:\n  block_private_network: false\nmcp_servers:\n  - {id: a, command: x}\n  - {id: b, command: y, env: {CORTEX_BLOCK_PRIVATE_NETWORK: "true"}}\n',
    });
    const [a, b] = loadConfig({ profilePath: join(root, 'config', 'profiles.yaml') }).servers;
    expect(a!.env.CORTEX_BLOCK_PRIVATE_NETWORK).toBe('false');
    expect(b!.env.CORTEX_BLOCK_PRIVATE_NETWORK).toBe('true');
  });

  it('tells the servers where documents and the index live, and which embedder to use', () => {
    const root = project({
      'profiles.yaml': 'paths:\n  documents: docs\nllm:\n  embedding: local\nmcp_servers:\n  - {id: a, command: x}\n',
      'models.yaml': 'models:\n  local: {type: ollama, model: m, embedding_model: nomic-embed-text, base_url: "http://10.0.0.5:11434"}\n',
    });
    const [a] = loadConfig({ profilePath: join(root, 'config', 'profiles.yaml'), env: {} }).servers;
    expect(a!.env).toMatchObject({
      CORTEX_DOCUMENTS_DIR: join(root, 'docs'),
      CORTEX_FAISS_DIR: join(root, 'faiss_index'),
      CORTEX_EMBEDDING: 'ollama:nomic-embed-text',
      OLLAMA_HOST: 'http://10.0.0.5:11434',
    });
  });

  it('forwards no model host or key while embeddings are built in', () => {
    const root = project({ 'profiles.yaml': 'mcp_servers:\n  - {id: a, command: x}\n' });
    const [a] = loadConfig({ profilePath: join(root, 'config', 'profiles.yaml'), env: { GEMINI_API_KEY: 'secret', OLLAMA_HOST: 'h' } }).servers;
    expect(a!.env.CORTEX_EMBEDDING).toBe('builtin');
    expect(a!.env).not.toHaveProperty('GEMINI_API_KEY');
    expect(a!.env).not.toHaveProperty('OLLAMA_HOST');
  });

  it('names llm.embedding when it is not a model key', () => {
    const root = project({ 'profiles.yaml': 'llm:\n  embedding: nope\n' });
    expect(() => loadConfig({ profilePath: join(root, 'config', 'profiles.yaml') })).toThrow(/profiles\.yaml:2: llm\.embedding: names the model "nope", which .*models\.yaml does not define \(it defines none\); or use "builtin"/);
  });

  it('refuses a server id defined twice', () => {
    const root = project({
      'profiles.yaml': 'mcp_servers:\n  - {id: a, command: x}\nmcpServers:\n  a: {command: y}\n',
    });
    expect(() => loadConfig({ profilePath: join(root, 'config', 'profiles.yaml') })).toThrow(/server id "a" is defined twice/);
  });

  it('names a missing profile file', () => {
    const missing = join(tmpdir(), 'no-such-dir', 'profiles.yaml');
    expect(() => loadConfig({ profilePath: missing })).toThrow(`${missing}: file not found`);
  });

  it('names a missing models file given explicitly, but tolerates a missing default one', () => {
    const root = project({ 'profiles.yaml': '' });
    const profilePath = join(root, 'config', 'profiles.yaml');
    expect(loadConfig({ profilePath }).models).toEqual({ models: {} });
    expect(() => loadConfig({ profilePath, modelsPath: join(root, 'nope.yaml') })).toThrow(/nope\.yaml: file not found/);
  });

  it('validates models.yaml with the key and expectation named', () => {
    const root = project({ 'profiles.yaml': '', 'models.yaml': 'models:\n  local:\n    type: llama\n    model: x\n' });
    expect(() => loadConfig({ profilePath: join(root, 'config', 'profiles.yaml') })).toThrow(
      /models\.yaml:3: models\.local\.type: Invalid option: expected one of "gemini"\|"ollama"/,
    );
  });
});

import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { PROJECT_ROOT, builtPath } from '../../src/paths.js';

const MATH = builtPath('mcp-servers/math/main.js');
const DOCUMENTS = builtPath('mcp-servers/documents/main.js');

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

  it('loads the shipped profile without a warning: every key it has is read by something', () => {
    expect(loadConfig().warnings).toEqual([]);
  });

  it('loads an older profile with keys nothing reads, warning about each with its line', () => {
    const root = project({ 'p.yaml': 'agent:\n  id: x\nmemory:\n  memory_service: true\nmcp_servers:\n  - id: s\n    script: srv/main.js\n    basic_tools: [a]\n' });
    const { warnings } = loadConfig({ profilePath: join(root, 'config', 'p.yaml') });
    expect(warnings).toEqual([
      expect.stringMatching(/p\.yaml:2: agent\.id is not used by cortex \(ignored\); remove it$/),
      expect.stringMatching(/p\.yaml:4: memory\.memory_service is not used by cortex \(ignored\); remove it$/),
      expect.stringMatching(/p\.yaml:8: .*basic_tools is not used by cortex \(ignored\)$/),
    ]);
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
      expect.objectContaining({ id: 'echo', transport: 'stdio', command: 'echo-server', args: ['--x'], cwd: root, env: {}, startTimeoutMs: 90_000 }),
    ]);
  });

  it("gives security.block_private_network to our servers only, unless the server's env overrides it", () => {
    const root = project({
      'profiles.yaml': `security:\n  block_private_network: false\nmcp_servers:\n  - {id: a, script: ${MATH}}\n  - {id: b, script: ${MATH}, env: {CORTEX_BLOCK_PRIVATE_NETWORK: "true"}}\n  - {id: c, command: x}\n`,
    });
    const [a, b, c] = loadConfig({ profilePath: join(root, 'config', 'profiles.yaml') }).servers;
    expect(a!.env.CORTEX_BLOCK_PRIVATE_NETWORK).toBe('false');
    expect(b!.env.CORTEX_BLOCK_PRIVATE_NETWORK).toBe('true');
    expect(c!.env).toEqual({});
  });

  it('tells the documents server where documents and the index live and how to reach its embedder; no one else gets the host', () => {
    const root = project({
      'profiles.yaml': `paths:\n  documents: docs\nllm:\n  embedding: local\nmcp_servers:\n  - {id: d, script: ${DOCUMENTS}}\n  - {id: m, command: node, args: [${MATH}]}\n  - {id: other, command: x}\n`,
      'models.yaml': 'models:\n  local: {type: ollama, model: m, embedding_model: nomic-embed-text, base_url: "http://10.0.0.5:11434"}\n',
    });
    const [d, m, other] = loadConfig({ profilePath: join(root, 'config', 'profiles.yaml'), env: {} }).servers;
    expect(d!.env).toMatchObject({
      CORTEX_DOCUMENTS_DIR: join(root, 'docs'),
      CORTEX_FAISS_DIR: join(root, 'faiss_index'),
      CORTEX_EMBEDDING: 'ollama:nomic-embed-text',
      OLLAMA_HOST: 'http://10.0.0.5:11434',
    });
    expect(m!.env.CORTEX_DOCUMENTS_DIR).toBe(join(root, 'docs'));
    expect(m!.env).not.toHaveProperty('OLLAMA_HOST');
    expect(other!.env).toEqual({});
  });

  it('gives the Gemini key to documents only when its embedder needs Gemini', () => {
    const models = 'models:\n  g: {type: gemini, model: gemini-2.5-flash, embedding_model: gemini-embedding-001}\n';
    const servers = `mcp_servers:\n  - {id: d, script: ${DOCUMENTS}}\n  - {id: w, script: ${builtPath('mcp-servers/websearch/main.js')}}\n  - {id: fs, command: npx}\n`;
    const env = { GEMINI_API_KEY: 'secret', OLLAMA_HOST: 'h' };
    const builtin = project({ 'profiles.yaml': servers, 'models.yaml': models });
    for (const s of loadConfig({ profilePath: join(builtin, 'config', 'profiles.yaml'), env }).servers) {
      expect(s.env).not.toHaveProperty('GEMINI_API_KEY');
      expect(s.env).not.toHaveProperty('OLLAMA_HOST');
    }
    const gemini = project({ 'profiles.yaml': `llm:\n  embedding: g\n${servers}`, 'models.yaml': models });
    const [d, w, fs] = loadConfig({ profilePath: join(gemini, 'config', 'profiles.yaml'), env }).servers;
    expect(d!.env.GEMINI_API_KEY).toBe('secret');
    expect(w!.env).not.toHaveProperty('GEMINI_API_KEY');
    expect(fs!.env).toEqual({});
  });

  it('tells the servers which vision model reads images, with its key, and names llm.vision when it is not a model key', () => {
    const root = project({
      'profiles.yaml': `llm:\n  vision: eyes\nmcp_servers:\n  - {id: d, script: ${DOCUMENTS}}\n  - {id: a, command: x}\n`,
      'models.yaml': 'models:\n  eyes: {type: gemini, model: gemini-2.0-flash}\n',
    });
    const [d, a] = loadConfig({ profilePath: join(root, 'config', 'profiles.yaml'), env: { GEMINI_API_KEY: 'secret' } }).servers;
    expect(d!.env).toMatchObject({ CORTEX_VISION_MODEL: 'gemini:gemini-2.0-flash', GEMINI_API_KEY: 'secret' });
    expect(a!.env).toEqual({});
    const bad = project({ 'profiles.yaml': 'llm:\n  vision: llava\n' });
    expect(() => loadConfig({ profilePath: join(bad, 'config', 'profiles.yaml') })).toThrow(/profiles\.yaml: llm\.vision: "llava" is not a key of .*\(or use none\)/);
  });

  it('gives the documents server an OpenAI-compatible or Anthropic vision model with the ecosystem’s variables', () => {
    const root = project({
      'profiles.yaml': `llm:\n  vision: eyes\nmcp_servers:\n  - {id: d, script: ${DOCUMENTS}}\n`,
      'models.yaml': 'models:\n  eyes: {type: openai, model: qwen2.5-vl, base_url: "http://127.0.0.1:1234/v1", api_key_env: LMS_KEY}\n',
    });
    const [d] = loadConfig({ profilePath: join(root, 'config', 'profiles.yaml'), env: { LMS_KEY: 'k1', ANTHROPIC_API_KEY: 'k2' } }).servers;
    expect(d!.env).toMatchObject({ CORTEX_VISION_MODEL: 'openai:qwen2.5-vl', OPENAI_API_KEY: 'k1', OPENAI_BASE_URL: 'http://127.0.0.1:1234/v1' });
    expect(d!.env).not.toHaveProperty('ANTHROPIC_API_KEY');
    const claude = project({ 'profiles.yaml': `llm:\n  vision: eyes\nmcp_servers:\n  - {id: d, script: ${DOCUMENTS}}\n`, 'models.yaml': 'models:\n  eyes: {type: anthropic, model: claude-haiku-5-5}\n' });
    const [c] = loadConfig({ profilePath: join(claude, 'config', 'profiles.yaml'), env: { ANTHROPIC_API_KEY: 'k2' } }).servers;
    expect(c!.env).toMatchObject({ CORTEX_VISION_MODEL: 'anthropic:claude-haiku-5-5', ANTHROPIC_API_KEY: 'k2' });
  });

  it('names llm.embedding when it is not a model key', () => {
    const root = project({ 'profiles.yaml': 'llm:\n  embedding: nope\n' });
    expect(() => loadConfig({ profilePath: join(root, 'config', 'profiles.yaml') })).toThrow(/profiles\.yaml:2: llm\.embedding: names the model "nope", which .*models\.yaml does not define \(it defines none\); or use "builtin"/);
  });

  it('keeps the first of a server id defined twice and warns about the second', () => {
    const root = project({
      'profiles.yaml': 'mcp_servers:\n  - {id: a, command: x}\nmcpServers:\n  a: {command: y}\n',
    });
    const config = loadConfig({ profilePath: join(root, 'config', 'profiles.yaml') });
    expect(config.servers.map((s) => s.command)).toEqual(['x']);
    expect(config.warnings).toEqual([expect.stringMatching(/profiles\.yaml:4: server id "a" is already defined at .*profiles\.yaml:2; this one is ignored/)]);
  });

  it('resolves relative paths against the profile folder when it is not named config', () => {
    const root = mkdtempSync(join(tmpdir(), 'cortex-config-'));
    writeFileSync(join(root, 'my-profile.yaml'), 'paths:\n  memory: mem\nmcp_servers:\n  - {id: s, script: srv.js}\n');
    const config = loadConfig({ profilePath: join(root, 'my-profile.yaml') });
    expect(config.root).toBe(root);
    expect(config.paths.memory).toBe(join(root, 'mem'));
    expect(config.servers[0]!.args).toEqual([join(root, 'srv.js')]);
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

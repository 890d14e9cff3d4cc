// The MCP reference servers from npm (pinned devDependencies, no network): env kept to its own, roots, paths in and out of root.
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import type { ServerSpec } from '../../src/config/server-spec.js';
import { MultiMcp } from '../../src/mcp/multi-mcp.js';
import { PROJECT_ROOT, builtPath } from '../../src/paths.js';

const serverJs = (name: string) => join(PROJECT_ROOT, 'node_modules', '@modelcontextprotocol', `server-${name}`, 'dist', 'index.js');
const textOf = (r: { content: Array<{ text?: string }> }) => r.content.map((c) => c.text ?? '').join('\n');

describe('server-everything sees only its own environment', () => {
  const SECRET = 'gemini-secret-for-the-env-test';
  const before = process.env.GEMINI_API_KEY;
  let multi: MultiMcp | undefined;
  afterEach(async () => {
    await multi?.close();
    if (before === undefined) delete process.env.GEMINI_API_KEY;
    else process.env.GEMINI_API_KEY = before;
  });

  it('does not see the Gemini key the documents server gets, nor our CORTEX_* settings', async () => {
    process.env.GEMINI_API_KEY = SECRET;
    const root = mkdtempSync(join(tmpdir(), 'cortex-env-'));
    mkdirSync(join(root, 'config'));
    writeFileSync(join(root, 'config', 'models.yaml'), 'models:\n  g: {type: gemini, model: gemini-2.5-flash, embedding_model: gemini-embedding-001}\n');
    writeFileSync(
      join(root, 'config', 'profiles.yaml'),
      `llm:\n  embedding: g\nmcp_servers:\n  - {id: documents, script: ${builtPath('mcp-servers/documents/main.js')}}\n` +
        `mcpServers:\n  everything: {command: node, args: [${serverJs('everything')}], env: {MY_SETTING: "\${HOME}"}}\n`,
    );
    const config = loadConfig({ profilePath: join(root, 'config', 'profiles.yaml') });
    expect(config.servers.find((s) => s.id === 'documents')!.env.GEMINI_API_KEY).toBe(SECRET);
    multi = await MultiMcp.start(config.servers.filter((s) => s.id === 'everything'));
    const env = JSON.parse(textOf(await multi.callTool('everything', 'get-env', {}))) as Record<string, string>;
    expect(env.PATH).toBe(process.env.PATH);
    expect(env.MY_SETTING).toBe(process.env.HOME);
    expect(JSON.stringify(env)).not.toContain(SECRET);
    expect(Object.keys(env).filter((k) => k.startsWith('CORTEX_') || k.startsWith('GEMINI') || k.startsWith('npm_'))).toEqual([]);
  });
});

describe('server-filesystem', () => {
  let inside: string;
  let outside: string;
  const stdio = (id: string, args: string[]): ServerSpec => ({
    id,
    command: process.execPath,
    args: [serverJs('filesystem'), ...args],
    cwd: PROJECT_ROOT,
    env: {},
    description: 'files',
    capabilities: [],
  });

  beforeAll(() => {
    inside = realpathSync(mkdtempSync(join(tmpdir(), 'cortex-fs-in-')));
    outside = realpathSync(mkdtempSync(join(tmpdir(), 'cortex-fs-out-')));
    writeFileSync(join(inside, 'note.txt'), 'inside the root');
    writeFileSync(join(outside, 'secret.txt'), 'outside the root');
  });

  describe('given its directory as an argument', () => {
    let multi: MultiMcp;
    beforeAll(async () => {
      multi = await MultiMcp.start([stdio('fs', [inside])]);
    });
    afterAll(() => multi.close());

    it('reads a file inside its root', async () => {
      const res = await multi.callTool('fs', 'read_text_file', { path: join(inside, 'note.txt') });
      expect(res.isError).toBeFalsy();
      expect(textOf(res)).toContain('inside the root');
    });

    it('refuses a file outside its root', async () => {
      const res = await multi.callTool('fs', 'read_text_file', { path: join(outside, 'secret.txt') });
      expect(res.isError).toBe(true);
      expect(textOf(res)).toMatch(/outside allowed directories/i);
      expect(textOf(res)).not.toContain('outside the root');
    });
  });

  describe('started without directory arguments', () => {
    let multi: MultiMcp;
    beforeAll(async () => {
      multi = await MultiMcp.start([stdio('fs', [])], { roots: [inside] });
    });
    afterAll(() => multi.close());

    it('works in the roots we advertise, and only there', async () => {
      // The server asks for roots/list after initialize and applies them on its own time: ask until it has.
      let allowed = '';
      for (let attempt = 0; attempt < 50 && !allowed.includes(inside); attempt++) {
        allowed = textOf(await multi.callTool('fs', 'list_allowed_directories', {}));
      }
      expect(allowed).toContain(inside);
      expect(textOf(await multi.callTool('fs', 'read_text_file', { path: join(inside, 'note.txt') }))).toContain('inside the root');
      expect((await multi.callTool('fs', 'read_text_file', { path: join(outside, 'secret.txt') })).isError).toBe(true);
    });
  });
});

import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ServerSpec } from '../../src/config/server-spec.js';
import { ToolCache } from '../../src/mcp/tool-cache.js';

const spec: ServerSpec = { id: 'fs', command: 'npx', args: ['-y', 'server-fs'], cwd: '/p', env: { TOKEN: 'secret' }, description: '', capabilities: [] };
const live = { serverVersion: 'fs@1.0.0', instructions: 'Use absolute paths.', tools: [{ server: 'fs', name: 'read_file', remoteName: 'read_file', description: 'reads', inputSchema: { type: 'object' } }] };

describe('ToolCache', () => {
  it('treats a broken cache file as empty and rewrites it on the next start', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'cortex-cache-')), 'mcp-tools.json');
    writeFileSync(file, '{"format": 1, "servers": {');
    const cache = await ToolCache.load(file);
    expect(cache.get(spec)).toBeUndefined();
    await cache.put(spec, live);
    expect((await ToolCache.load(file)).get({ ...spec, id: 'files' })).toEqual({ ...live, tools: [{ ...live.tools[0], server: 'files' }] });
  });

  it('never stores a server env (secrets), and keys a server by how it starts', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'cortex-cache-')), 'mcp-tools.json');
    await (await ToolCache.load(file)).put(spec, live);
    expect(readFileSync(file, 'utf8')).not.toContain('secret');
    const cache = await ToolCache.load(file);
    expect(cache.get({ ...spec, env: {} })).toBeDefined();
    expect(cache.get({ ...spec, args: ['-y', 'server-fs', '/tmp'] })).toBeUndefined();
  });
});

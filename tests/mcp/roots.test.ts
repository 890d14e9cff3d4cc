// Roots respect the user: a server given directories keeps them (the real server-filesystem), others get the profile's roots.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ServerSpec } from '../../src/config/server-spec.js';
import { MultiMcp } from '../../src/mcp/multi-mcp.js';
import { configuredDirectories, rootsFor } from '../../src/mcp/roots.js';
import { PROJECT_ROOT } from '../../src/paths.js';

const FILESYSTEM = join(PROJECT_ROOT, 'node_modules', '@modelcontextprotocol', 'server-filesystem', 'dist', 'index.js');
const stdio = (args: string[], cwd = PROJECT_ROOT): ServerSpec => ({ id: 'fs', command: process.execPath, args, cwd, env: {}, description: 'files', capabilities: [] });
const text = (r: { content: Array<{ text?: string }> }) => r.content.map((c) => c.text ?? '').join('\n');

let multi: MultiMcp | undefined;
afterEach(async () => {
  await multi?.close();
  multi = undefined;
});

describe('roots', () => {
  it('lets server-filesystem keep the directory it was given instead of replacing it with the profile roots', async () => {
    const configured = mkdtempSync(join(tmpdir(), 'cortex-fs-given-'));
    const profileRoot = mkdtempSync(join(tmpdir(), 'cortex-fs-profile-'));
    writeFileSync(join(configured, 'notes.txt'), 'hello');
    multi = await MultiMcp.start([stdio([FILESYSTEM, configured])], { roots: [profileRoot] });
    expect(multi.statuses()[0]).toMatchObject({ state: 'ready', roots: [configured] });
    const listing = await multi.callTool('fs', 'list_directory', { path: configured });
    expect(listing.isError).toBeFalsy();
    expect(text(listing)).toContain('notes.txt');
    const outside = await multi.callTool('fs', 'list_directory', { path: profileRoot });
    expect(text(outside)).toMatch(/denied|outside allowed/i);
  });

  it('offers the profile roots to a server given no directory', () => {
    const profile = mkdtempSync(join(tmpdir(), 'cortex-roots-'));
    expect(rootsFor(stdio([FILESYSTEM]), [profile]).map((r) => r.path)).toEqual([profile]);
    expect(rootsFor({ ...stdio([]), transport: 'http', url: 'http://127.0.0.1:1/mcp' }, [profile])[0]).toMatchObject({ path: profile, uri: expect.stringMatching(/^file:\/\//) });
  });

  it('finds directories given bare, relative or as --flag=DIR, and not scoped package names or files', () => {
    const cwd = mkdtempSync(join(tmpdir(), 'cortex-args-'));
    mkdirSync(join(cwd, 'repo'));
    mkdirSync(join(cwd, 'data'));
    writeFileSync(join(cwd, 'server.js'), '');
    mkdirSync(join(cwd, '@modelcontextprotocol', 'server-filesystem'), { recursive: true });
    const args = ['-y', '@modelcontextprotocol/server-filesystem', 'server.js', './repo', '--root=data', '/nonexistent-dir', './repo'];
    expect(configuredDirectories({ args, cwd })).toEqual([join(cwd, 'repo'), join(cwd, 'data')]);
  });
});

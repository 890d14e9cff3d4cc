// The table of servers people run, checked against their real tool lists (tests/fixtures/third-party-tools.json, listed
// from the npm packages with the MCP SDK client): every tool is classed, and the classes are the ones a user expects.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/paths.js';
import { knownServerKind, knownTool, type KnownServerKind } from '../../src/policy/known-servers.js';

const catalogues = JSON.parse(readFileSync(join(PROJECT_ROOT, 'tests/fixtures/third-party-tools.json'), 'utf8')) as Record<string, { tools: Array<[string, string]> }>;

/** How each catalogue's server is launched in a profile (npx, a node_modules path, uvx, a URL). */
const LAUNCH: Record<string, { command: string; args: string[]; url?: string; kind: KnownServerKind }> = {
  filesystem: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/home/me'], kind: 'filesystem' },
  memory: { command: 'node', args: ['/x/node_modules/@modelcontextprotocol/server-memory/dist/index.js'], kind: 'memory' },
  everything: { command: 'npx', args: ['@modelcontextprotocol/server-everything'], kind: 'everything' },
  thinking: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-sequential-thinking'], kind: 'thinking' },
  time: { command: 'npx', args: ['time-mcp'], kind: 'time' },
  sqlite: { command: '/x/node_modules/.bin/mcp-sqlite-server', args: ['db.sqlite'], kind: 'sqlite' },
  git: { command: 'npx', args: ['@cyanheads/git-mcp-server'], kind: 'git' },
  fetch: { command: 'npx', args: ['mcp-fetch-server'], kind: 'fetch' },
  playwright: { command: 'npx', args: ['@playwright/mcp@latest', '--headless'], kind: 'browser' },
};

describe('known servers', () => {
  it.each(Object.entries(LAUNCH))('knows %s by the package in its command line', (_name, launch) => {
    expect(knownServerKind(launch)).toBe(launch.kind);
  });

  it('knows the official Python servers and GitHub by theirs, and nobody else by accident', () => {
    expect(knownServerKind({ command: 'uvx', args: ['mcp-server-git', '--repository', '.'] })).toBe('git');
    expect(knownServerKind({ command: 'uvx', args: ['mcp-server-time'] })).toBe('time');
    expect(knownServerKind({ command: 'uvx', args: ['mcp-server-sqlite', '--db-path', 'x.db'] })).toBe('sqlite');
    expect(knownServerKind({ command: 'uvx', args: ['mcp-server-fetch'] })).toBe('fetch');
    expect(knownServerKind({ command: 'docker', args: ['run', 'ghcr.io/github/github-mcp-server'] })).toBe('github');
    expect(knownServerKind({ command: 'node', args: ['my-office-server.mjs'] })).toBeNull();
  });

  it.each(Object.keys(LAUNCH))('classes every tool %s offers', (name) => {
    const unclassed = catalogues[name]!.tools.map(([tool]) => tool).filter((tool) => knownTool(LAUNCH[name]!.kind, tool) === null);
    expect(unclassed).toEqual([]);
  });

  it('classes reads as reads, local changes as writes, and what leaves the machine as egress', () => {
    const kind = (server: KnownServerKind, tool: string) => knownTool(server, tool)?.kind;
    expect(['read_text_file', 'list_directory', 'search_files'].map((t) => kind('filesystem', t))).toEqual(['read', 'read', 'read']);
    expect(['write_file', 'move_file'].map((t) => kind('filesystem', t))).toEqual(['write', 'write']);
    expect(['git_status', 'git_log', 'git_diff', 'git_show'].map((t) => kind('git', t))).toEqual(['read', 'read', 'read', 'read']);
    expect(['git_commit', 'git_reset', 'git_push', 'git_clone'].map((t) => kind('git', t))).toEqual(['write', 'write', 'egress', 'egress']);
    expect(['list_tables', 'get_table_schema', 'read_records', 'query', 'delete_records'].map((t) => kind('sqlite', t))).toEqual(['read', 'read', 'read', 'write', 'write']);
    expect(['current_time', 'convert_time'].map((t) => kind('time', t))).toEqual(['read', 'read']);
    expect(['fetch_html', 'fetch_markdown'].map((t) => kind('fetch', t))).toEqual(['egress', 'egress']);
    expect(['browser_navigate', 'browser_snapshot', 'browser_click', 'browser_type', 'browser_run_code_unsafe'].map((t) => kind('browser', t))).toEqual(['egress', 'read', 'read', 'egress', 'egress']);
    expect(['echo', 'get-sum', 'gzip-file-as-resource'].map((t) => kind('everything', t))).toEqual(['read', 'read', 'egress']);
  });

  it('asks before known tools that destroy data, not before ones that only add', () => {
    expect(knownTool('memory', 'create_entities')?.destroys).toBe(false);
    expect(knownTool('memory', 'delete_entities')?.destroys).toBe(true);
    expect(knownTool('git', 'git_commit')?.destroys).toBe(false);
    expect(knownTool('git', 'git_reset')?.destroys).toBe(true);
    expect(knownTool('sqlite', 'update_records')?.destroys).toBe(true);
  });
});

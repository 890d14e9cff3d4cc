// The built websearch server as a plain MCP client (and `cortex servers test`) sees it, configured by env.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtPath } from '../../src/paths.js';
import { runCli } from '../cli/run-cli.js';
import { startFixtureServer, type FixtureServer } from '../fixtures/websearch/fixture-server.js';

const MAIN_JS = builtPath('mcp-servers/websearch/main.js');

let fixtures: FixtureServer;
const clients: Client[] = [];

/** Starts the built server with `env` (on top of the SDK's safe defaults) and connects a client to it. */
async function startServer(env: Record<string, string>): Promise<Client> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [MAIN_JS], env: { ...getDefaultEnvironment(), ...env }, stderr: 'pipe' });
  const client = new Client({ name: 'cortex-r-websearch-stdio', version: '0.0.0' });
  await client.connect(transport);
  clients.push(client);
  return client;
}

function textOf(res: CallToolResult): string {
  const first = res.content[0];
  return first?.type === 'text' ? first.text : '';
}

beforeAll(async () => {
  if (!existsSync(MAIN_JS)) throw new Error(`${MAIN_JS} is missing: build first with npx tsc -p tsconfig.json`);
  fixtures = await startFixtureServer();
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await fixtures.close();
});

describe('websearch server over stdio', () => {
  it('lists its two tools and searches, then reads a result page, against the endpoint in CORTEX_DDG_URL', async () => {
    const client = await startServer({ CORTEX_DDG_URL: fixtures.searchUrl, CORTEX_BLOCK_PRIVATE_NETWORK: 'false' });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['download_raw_html_from_url', 'duckduckgo_search_results']);

    const search = (await client.callTool({ name: 'duckduckgo_search_results', arguments: { query: 'eiffel tower height' } })) as CallToolResult;
    expect(search.isError).toBeFalsy();
    const { result, results } = JSON.parse(textOf(search)) as { result: string; results: { url: string }[] };
    expect(result).toMatch(/^Found 10 search results:\n\n1\. Why the Eiffel Tower grows in summer/);

    const firstUrl = results[0]?.url ?? '';
    expect(firstUrl).toBe(fixtures.url('/eiffel-tower-article.html'));
    const page = (await client.callTool({ name: 'download_raw_html_from_url', arguments: { url: firstUrl } })) as CallToolResult;
    expect(page.structuredContent).toEqual({ result: expect.stringContaining('moving up to 18 centimetres away from the sun') });
  });

  it('refuses 127.0.0.1 by default, run on its own with no CORTEX_BLOCK_PRIVATE_NETWORK', async () => {
    const client = await startServer({ CORTEX_DDG_URL: fixtures.searchUrl });
    const page = (await client.callTool({ name: 'download_raw_html_from_url', arguments: { url: fixtures.url('/plain.txt') } })) as CallToolResult;
    expect(page.isError).toBe(true);
    expect(textOf(page)).toContain('127.0.0.1 is loopback');
  });

  it('exits at start with the variable named when a setting is malformed', async () => {
    const child = spawn(process.execPath, [MAIN_JS], { env: { ...getDefaultEnvironment(), CORTEX_WEBSEARCH_TIMEOUT_MS: 'soon' } });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(1);
    expect(stderr.trim()).toBe('[websearch] bad setting: CORTEX_WEBSEARCH_TIMEOUT_MS: expected a whole number from 100 to 120000, got "soon"');
  });

  it('passes `cortex servers test websearch` against the local endpoint', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cortex-websearch-'));
    const profile = join(dir, 'profiles.yaml');
    writeFileSync(
      profile,
      [
        'mcp_servers:',
        '  - id: websearch',
        `    script: ${MAIN_JS}`,
        '    env:',
        `      CORTEX_DDG_URL: ${fixtures.searchUrl}`,
        '      CORTEX_BLOCK_PRIVATE_NETWORK: "false"',
        '',
      ].join('\n'),
    );
    const run = await runCli(['--profile', profile, 'servers', 'test', 'websearch']);
    expect(run.stdout).toContain('2 passed, 0 failed');
    expect(run.code).toBe(0);
  });
});

// The built websearch and documents servers answer a fetch of a host with no route with an error result, and keep serving.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, describe, expect, it } from 'vitest';
import { builtPath } from '../../src/paths.js';
import { NO_ROUTE_HOST, withNoRouteHost } from './with-hosts-file.js';

const NO_ROUTE = `http://${NO_ROUTE_HOST}/page`;
const clients: Client[] = [];

async function startServer(main: string, env: Record<string, string>): Promise<{ client: Client; transport: StdioClientTransport }> {
  // Run where NO_ROUTE_HOST resolves to an address with no route (the server's own resolver, as in production).
  const { command, args } = withNoRouteHost(process.execPath, [builtPath(main)]);
  const transport = new StdioClientTransport({ command, args, env: { ...getDefaultEnvironment(), ...env }, stderr: 'pipe' });
  const client = new Client({ name: 'cortex-r-unreachable', version: '0.0.0' });
  await client.connect(transport);
  clients.push(client);
  return { client, transport };
}

const textOf = (res: CallToolResult) => res.content.map((c) => (c.type === 'text' ? c.text : '')).join('');

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
});

describe('servers fetching a host with no route', () => {
  it('websearch: the download fails as a tool error, twice, with the same process still serving', async () => {
    const { client, transport } = await startServer('mcp-servers/websearch/main.js', { CORTEX_BLOCK_PRIVATE_NETWORK: 'false' });
    const pid = transport.pid;
    for (const url of [NO_ROUTE, NO_ROUTE.replace('http:', 'https:')]) {
      const res = (await client.callTool({ name: 'download_raw_html_from_url', arguments: { url } })) as CallToolResult;
      expect(res.isError).toBe(true);
      expect(textOf(res)).toContain('the network is unreachable');
    }
    expect(transport.pid).toBe(pid);
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
  });

  it('documents: indexing a .url document pointing there skips it and the server keeps serving', async () => {
    const root = mkdtempSync(join(tmpdir(), 'cortex-docs-unreachable-'));
    const documents = join(root, 'documents');
    mkdirSync(documents);
    writeFileSync(join(documents, 'no-route.url'), `${NO_ROUTE}\n`);
    writeFileSync(join(documents, 'notes.txt'), 'The ferry leaves at noon from the north pier.\n');
    const { client, transport } = await startServer('mcp-servers/documents/main.js', {
      CORTEX_DOCUMENTS_DIR: documents,
      CORTEX_FAISS_DIR: join(root, 'faiss_index'),
      CORTEX_BLOCK_PRIVATE_NETWORK: 'false',
    });
    const pid = transport.pid;
    const { tools } = await client.listTools();
    const search = tools.find((t) => t.name === 'search_stored_documents');
    expect(search).toBeDefined();
    const res = (await client.callTool({ name: 'search_stored_documents', arguments: { query: 'ferry north pier', k: 1 } })) as CallToolResult;
    expect(res.isError).toBeFalsy();
    expect(textOf(res)).toContain('notes.txt');
    expect(transport.pid).toBe(pid);
  });
});

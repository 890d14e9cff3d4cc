// Our servers as shipped (dist/bundle/NAME.js, what profiles.yaml launches) answer exactly as the unbundled build does.
import { existsSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtPath } from '../../src/paths.js';
import { makeTempFolders, type TempFolders } from '../rag/temp-folders.js';

let folders: TempFolders;
const clients: Client[] = [];

beforeAll(async () => {
  folders = await makeTempFolders();
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await folders.remove();
});

/** Starts one build of a server over stdio, with settings that keep it off the network and out of the project's folders. */
async function connect(script: string): Promise<Client> {
  if (!existsSync(script)) throw new Error(`${script} is missing: build first with npm run build`);
  const env = {
    PATH: process.env.PATH ?? '',
    CORTEX_DOCUMENTS_DIR: folders.documentsDir,
    CORTEX_FAISS_DIR: folders.indexDir,
    CORTEX_EMBEDDING: 'builtin',
    CORTEX_INDEX_AT_START: '0',
    CORTEX_MEMORY_DIR: folders.documentsDir,
  };
  const client = new Client({ name: 'cortex-r-bundle-test', version: '0.0.0' });
  clients.push(client);
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [script], env, stderr: 'ignore' }));
  return client;
}

/** Both builds of `name`: the bundle users run and tsc's output the other stdio tests use. */
async function bothBuilds(name: string): Promise<{ bundled: Client; unbundled: Client }> {
  const [bundled, unbundled] = await Promise.all([connect(builtPath(`bundle/${name}.js`)), connect(builtPath(`mcp-servers/${name}/main.js`))]);
  return { bundled, unbundled };
}

describe('bundled servers', () => {
  it.each(['math', 'documents', 'websearch', 'history'])('%s lists the same tools, schemas and examples as its unbundled build', async (name) => {
    const { bundled, unbundled } = await bothBuilds(name);
    const [fromBundle, fromTsc] = await Promise.all([bundled.listTools(), unbundled.listTools()]);
    expect(fromBundle.tools.length).toBeGreaterThan(0);
    expect(fromBundle).toEqual(fromTsc);
    expect(bundled.getServerVersion()).toEqual(unbundled.getServerVersion());
    expect(bundled.getInstructions()).toEqual(unbundled.getInstructions());
  });

  it('math answers a wrongly typed argument with the same English message as its unbundled build', async () => {
    const { bundled, unbundled } = await bothBuilds('math');
    const call = { name: 'add', arguments: { a: 'two', b: 2 } };
    const [fromBundle, fromTsc] = (await Promise.all([bundled.callTool(call), unbundled.callTool(call)])) as CallToolResult[];
    expect(fromBundle!.isError).toBe(true);
    expect(JSON.stringify(fromBundle!.content)).toContain('expected number, received string');
    expect(fromBundle).toEqual(fromTsc);
  });

  it('history answers an empty query with the same English message as its unbundled build, and searches', async () => {
    const { bundled, unbundled } = await bothBuilds('history');
    const bad = { name: 'search_past_sessions', arguments: { query: '' } };
    const [badBundle, badTsc] = (await Promise.all([bundled.callTool(bad), unbundled.callTool(bad)])) as CallToolResult[];
    expect(badBundle!.isError).toBe(true);
    expect(JSON.stringify(badBundle!.content)).toMatch(/Too small: expected string to have >=1 characters/);
    expect(badBundle).toEqual(badTsc);
    const good = (await bundled.callTool({ name: 'search_past_sessions', arguments: { query: 'capital' } })) as CallToolResult;
    expect(good.structuredContent).toEqual({ result: [] });
  });
});

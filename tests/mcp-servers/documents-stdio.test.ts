// The built documents server as a plain MCP client sees it: node dist/mcp-servers/documents/main.js over stdio.
import { existsSync } from 'node:fs';
import { copyFile, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtPath, PROJECT_ROOT } from '../../src/paths.js';
import { makeTempFolders, type TempFolders } from '../rag/temp-folders.js';

const MAIN_JS = builtPath('mcp-servers/documents/main.js');

let folders: TempFolders;
let client: Client;
let stderrText = '';

beforeAll(async () => {
  if (!existsSync(MAIN_JS)) throw new Error(`${MAIN_JS} is missing: build first with npx tsc -p tsconfig.json`);
  folders = await makeTempFolders();
  await copyFile(join(PROJECT_ROOT, 'tests/fixtures/corpus/pdf/wind-report.pdf'), join(folders.documentsDir, 'wind-report.pdf'));
  await folders.write('tesla.md', '# Tesla\n\nNikola Tesla designed the alternating current induction motor in 1887.');
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [MAIN_JS],
    env: { PATH: process.env.PATH ?? '', CORTEX_DOCUMENTS_DIR: folders.documentsDir, CORTEX_FAISS_DIR: folders.indexDir, CORTEX_EMBEDDING: 'builtin' },
    stderr: 'pipe',
  });
  (transport.stderr as Readable | null)?.on('data', (chunk: Buffer) => {
    stderrText += chunk.toString('utf8');
  });
  client = new Client({ name: 'cortex-r-documents-stdio-test', version: '0.0.0' });
  await client.connect(transport);
});

afterAll(async () => {
  await client.close();
  await folders.remove();
});

describe('documents server over stdio', () => {
  it('lists its tools, indexes the folder, and answers a search with the source and page', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['convert_webpage_url_into_markdown', 'extract_pdf', 'search_stored_documents']);
    const result = (await client.callTool({ name: 'search_stored_documents', arguments: { query: 'How many turbines does the Hollowmere wind farm have?', k: 1 } })) as CallToolResult;
    const text = (result.structuredContent as { result: string }).result;
    expect(text).toContain('forty turbines');
    expect(text).toContain('[Source: wind-report.pdf, ID: wind-report.pdf#0, page 1]');
    const metadata = JSON.parse(await readFile(join(folders.indexDir, 'metadata.json'), 'utf8')) as { model: string; count: number };
    expect(metadata).toMatchObject({ model: 'builtin:lexical-v2-1024', count: 3 });
    expect(stderrText).toMatch(/\[documents\] indexed .*: 2 added/);
  });

  it('refuses a loopback URL under the default network policy, without connecting', async () => {
    const result = (await client.callTool({ name: 'convert_webpage_url_into_markdown', arguments: { url: 'http://127.0.0.1:9/' } })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toMatch(/private|local|not allowed|refus/i);
  });

  it('refuses to extract a file outside the documents folder', async () => {
    const result = (await client.callTool({ name: 'extract_pdf', arguments: { file_path: '/etc/passwd' } })) as CallToolResult;
    expect(result.isError).toBe(true);
  });
});

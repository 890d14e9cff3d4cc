// The built math server as a plain MCP client sees it: node dist/mcp-servers/math/main.js over stdio.
import { existsSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE_META_KEY } from '../../mcp-servers/shared/example-meta.js';
import { builtPath } from '../../src/paths.js';

const MAIN_JS = builtPath('mcp-servers/math/main.js');

let client: Client;
let transport: StdioClientTransport;
let stderrText = '';

beforeAll(async () => {
  if (!existsSync(MAIN_JS)) throw new Error(`${MAIN_JS} is missing: build first with npx tsc -p tsconfig.json`);
  transport = new StdioClientTransport({ command: process.execPath, args: [MAIN_JS], stderr: 'pipe' });
  (transport.stderr as Readable | null)?.on('data', (chunk: Buffer) => {
    stderrText += chunk.toString('utf8');
  });
  client = new Client({ name: 'cortex-r-stdio-test', version: '0.0.0' });
  await client.connect(transport);
});

afterAll(async () => {
  await client.close();
});

describe('math server over stdio', () => {
  it('lists its tools with outputSchema and example arguments in _meta', async () => {
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(15);
    const add = tools.find((t) => t.name === 'add');
    expect(add?.outputSchema?.properties).toHaveProperty('result');
    expect(add?._meta?.[EXAMPLE_META_KEY]).toEqual({ a: 2, b: 3 });
    expect(tools.every((t) => t.outputSchema && t._meta?.[EXAMPLE_META_KEY])).toBe(true);
  });

  it('calls add and gets the result as structured content and JSON text', async () => {
    const res = (await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } })) as CallToolResult;
    expect(res.structuredContent).toEqual({ result: 5 });
    expect(res.content).toEqual([{ type: 'text', text: '{"result":5}' }]);
  });

  it('answers an isError call and keeps serving', async () => {
    const bad = (await client.callTool({ name: 'divide', arguments: { a: 1, b: 0 } })) as CallToolResult;
    expect(bad.isError).toBe(true);
    const good = (await client.callTool({ name: 'multiply', arguments: { a: 6, b: 7 } })) as CallToolResult;
    expect(good.structuredContent).toEqual({ result: 42 });
  });

  it('logs to stderr only, and exits on its own when the client closes stdin', async () => {
    expect(stderrText).toContain('[math] MCP server ready on stdio');
    const separate = new StdioClientTransport({ command: process.execPath, args: [MAIN_JS], stderr: 'pipe' });
    let separateStderr = '';
    (separate.stderr as Readable | null)?.on('data', (chunk: Buffer) => {
      separateStderr += chunk.toString('utf8');
    });
    const other = new Client({ name: 'cortex-r-stdio-close', version: '0.0.0' });
    await other.connect(separate);
    await other.listTools();
    // close() ends stdin and waits for the process to exit (escalating to SIGTERM only if it does not).
    await other.close();
    expect(separateStderr).toContain('[math] shutting down (stdin closed)');
  });
});

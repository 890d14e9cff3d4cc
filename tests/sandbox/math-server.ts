// Test helper: the built math MCP server behind a plain SDK client, adapted to ToolCaller + ToolInfo[].
import { existsSync, readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { ToolCaller, ToolInfo, ToolResult } from '../../src/mcp/types.js';
import { builtPath } from '../../src/paths.js';

export interface MathServer {
  tools: ToolInfo[];
  caller: ToolCaller;
  close(): Promise<void>;
}

/** Starts `node dist/mcp-servers/math/main.js` over stdio (build first) and lists its tools. */
export async function startMathServer(): Promise<MathServer> {
  const entry = builtPath('mcp-servers/math/main.js');
  if (!existsSync(entry)) throw new Error(`${entry} is missing: run \`npx tsc -p tsconfig.json\` first`);
  const client = new Client({ name: 'sandbox-tests', version: '0.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [entry], stderr: 'ignore' }));
  const { tools } = await client.listTools();
  return {
    tools: tools.map((t) => ({
      server: 'math',
      name: t.name,
      description: t.description ?? '',
      inputSchema: t.inputSchema as Record<string, unknown>,
      ...(t.outputSchema ? { outputSchema: t.outputSchema as Record<string, unknown> } : {}),
    })),
    caller: {
      async callTool(name, args, options = {}) {
        const result = await client.callTool({ name, arguments: args }, undefined, {
          ...(options.signal ? { signal: options.signal } : {}),
          ...(options.timeoutMs ? { timeout: options.timeoutMs } : {}),
        });
        return result as ToolResult;
      },
    },
    close: () => client.close(),
  };
}

/** True when this (the host) process has isolated-vm's native module mapped: it never should. */
export function hostLoadedIsolatedVm(): boolean {
  const maps = '/proc/self/maps';
  return existsSync(maps) && readFileSync(maps, 'utf8').includes('isolated_vm');
}

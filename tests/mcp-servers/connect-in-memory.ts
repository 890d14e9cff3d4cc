// Test helper: connects a real SDK Client to an McpServer over InMemoryTransport, in this process.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ListRootsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { pathToFileURL } from 'node:url';

/** A connected client plus a close() that ends both sides. */
export interface InMemoryConnection {
  client: Client;
  /** tools/call, typed as the plain CallToolResult (no task results here). */
  call(name: string, args: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
}

/**
 * Connects a new SDK Client to `server`; lists tools once so the client validates structured output as real clients do.
 * `roots`: folders the client offers through roots/list, as Cortex-R does (none: no roots capability).
 */
export async function connectInMemory(server: McpServer, { roots }: { roots?: string[] } = {}): Promise<InMemoryConnection> {
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'cortex-r-test', version: '0.0.0' }, roots ? { capabilities: { roots: { listChanged: false } } } : {});
  if (roots) client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: roots.map((p) => ({ uri: pathToFileURL(p).href })) }));
  await Promise.all([server.connect(serverTransport), client.connect(clientTransport)]);
  await client.listTools();
  return {
    client,
    call: async (name, args) => (await client.callTool({ name, arguments: args })) as CallToolResult,
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}

/** The text of a result's first content item (our servers always send exactly one text item). */
export function textOf(result: CallToolResult): string {
  const first = result.content[0];
  if (first?.type !== 'text') throw new Error(`expected a text content item, got ${JSON.stringify(result.content)}`);
  return first.text;
}

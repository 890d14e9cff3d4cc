// One MCP server over stdio: spawn, connect, list tools, call, and notice when it dies.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { ServerSpec } from '../config/load-config.js';
import { McpError, errorMessage } from '../errors.js';
import { malformedResultMessage } from './malformed-result-message.js';
import type { ToolInfo, ToolResult } from './types.js';

/** Time for a server to start and answer initialize + tools/list. */
export const SERVER_START_TIMEOUT_MS = 15_000;
/** Pages of tools/list followed before we stop (a server paging forever would hang start-up). */
const MAX_TOOL_PAGES = 50;
/** Last stderr characters kept per server, shown when it fails. */
const STDERR_TAIL_CHARS = 2_000;

export class ServerConnection {
  private client: Client | undefined;
  private transport: StdioClientTransport | undefined;
  private stderrTail = '';
  tools: ToolInfo[] = [];
  alive = false;

  constructor(readonly spec: ServerSpec) {}

  /** Spawns the server and lists its tools; throws McpError (with the server's stderr tail) on failure. */
  async start(): Promise<void> {
    await this.close();
    this.stderrTail = '';
    const transport = new StdioClientTransport({
      command: this.spec.command,
      args: this.spec.args,
      cwd: this.spec.cwd,
      // The SDK forwards only a few variables by default; add the ones the config gives.
      env: { ...getDefaultEnvironment(), ...this.spec.env },
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-STDERR_TAIL_CHARS);
    });
    const client = new Client({ name: 'cortex-r', version: '0.1.0' });
    client.onclose = () => {
      if (this.client === client) this.alive = false;
    };
    this.client = client;
    this.transport = transport;
    try {
      await client.connect(transport, { timeout: SERVER_START_TIMEOUT_MS });
      this.tools = await this.listTools(client);
      this.alive = true;
    } catch (err) {
      await this.close();
      const tail = stderrSummary(this.stderrTail);
      throw new McpError(this.spec.id, `could not start (${errorMessage(err)})${tail ? `; its stderr: ${tail}` : ''}`, {
        cause: err,
      });
    }
  }

  private async listTools(client: Client): Promise<ToolInfo[]> {
    const tools: ToolInfo[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_TOOL_PAGES; page++) {
      const res = await client.listTools(cursor ? { cursor } : undefined, { timeout: SERVER_START_TIMEOUT_MS });
      for (const t of res.tools) {
        tools.push({
          server: this.spec.id,
          name: t.name,
          description: t.description ?? '',
          inputSchema: t.inputSchema as Record<string, unknown>,
          ...(t.outputSchema ? { outputSchema: t.outputSchema as Record<string, unknown> } : {}),
          ...(t._meta ? { meta: t._meta } : {}),
        });
      }
      cursor = res.nextCursor;
      if (!cursor) break;
    }
    return tools;
  }

  /** Calls a tool; throws McpError if the connection is down or the call times out. */
  async call(name: string, args: Record<string, unknown>, options: { timeoutMs: number; signal?: AbortSignal }): Promise<ToolResult> {
    if (!this.client || !this.alive) throw new McpError(this.spec.id, 'not running');
    try {
      const res = await this.client.callTool({ name, arguments: args }, undefined, {
        timeout: options.timeoutMs,
        ...(options.signal ? { signal: options.signal } : {}),
      });
      return res as ToolResult;
    } catch (err) {
      // The SDK reports a result that breaks the protocol as a many-line schema dump; the model gets one line.
      const malformed = malformedResultMessage(err);
      if (malformed === undefined) throw err;
      throw new McpError(this.spec.id, `tool ${name}: ${malformed}`, { cause: err });
    }
  }

  /** The server's process id while it runs (used by tests and diagnostics). */
  get pid(): number | null {
    return this.transport?.pid ?? null;
  }

  async close(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.transport = undefined;
    this.alive = false;
    if (client) await client.close().catch(() => undefined);
  }
}

/** The most telling stderr line: the first that names an error, else the last one. */
function stderrSummary(stderr: string): string {
  const lines = stderr.split('\n').map((l) => l.trim()).filter(Boolean);
  return lines.find((l) => /error/i.test(l)) ?? lines.at(-1) ?? '';
}

// Runs an McpServer over stdio for a server's entry file: stdout carries the protocol, every log goes to stderr.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

/** Options for {@link runStdioServer}. */
export interface RunStdioServerOptions {
  /** Name used in the stderr log lines, e.g. "math". */
  name: string;
}

/**
 * Connects `server` to stdin/stdout and resolves once it is listening. The process ends when the client
 * closes stdin or on SIGINT/SIGTERM, after closing the server. `console.log` and friends are redirected
 * to stderr first, because a stray line on stdout from any dependency would corrupt the protocol.
 */
export async function runStdioServer(server: McpServer, { name }: RunStdioServerOptions): Promise<void> {
  const toStderr = (...args: unknown[]): void => console.error(...args);
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;

  const transport = new StdioServerTransport();
  let closing = false;
  const shutdown = (why: string): void => {
    if (closing) return;
    closing = true;
    process.stderr.write(`[${name}] shutting down (${why})\n`);
    server
      .close()
      .catch((err: unknown) => process.stderr.write(`[${name}] error while closing: ${String(err)}\n`))
      .finally(() => process.exit(0));
  };
  process.once('SIGINT', () => shutdown('SIGINT'));
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  // The transport does not watch for end of input; without this a client that merely closes our stdin leaves us running.
  process.stdin.once('end', () => shutdown('stdin closed'));

  await server.connect(transport);
  process.stderr.write(`[${name}] MCP server ready on stdio\n`);
}

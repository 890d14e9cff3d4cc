// `cortex mcp`: Cortex-R as an MCP server over stdio (stdout carries the protocol only; every log goes to stderr),
// or with --http over Streamable HTTP; both speak MCP 2026-07-28 to a client that asks for it and 2025-era before.
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import type { LoadedConfig } from '../config/load-config.js';
import { UsageError } from '../errors.js';
import { checkApiToken, isLoopbackHost } from '../serve/access-policy.js';
import { startMcpHttp } from '../serve/mcp/http-endpoint.js';
import { cortexMcpService } from '../serve/mcp-server.js';
import { LimitedStdioTransport } from '../serve/stdio-transport.js';
import { listSkills } from '../skills/skill-file.js';
import { EXIT } from './exit-codes.js';
import type { Output } from './output.js';
import { Runtime, type RuntimeOptions } from '../runtime/runtime.js';

/** `--http PORT` serves over HTTP instead of stdio; `--host` widens it past loopback (then CORTEX_API_TOKEN is needed). */
export interface McpOptions extends RuntimeOptions {
  http?: number;
  host?: string;
}

/** Runs until the client closes stdin (stdio), or SIGINT / SIGTERM. `out` is used for its stderr methods only. */
export async function mcpCommand(config: LoadedConfig, options: McpOptions, out: Output): Promise<number> {
  const { http, host = '127.0.0.1', ...runtimeOptions } = options;
  const token = process.env.CORTEX_API_TOKEN?.trim() || undefined;
  if (http !== undefined) {
    if (!Number.isInteger(http) || http < 0 || http > 65_535) throw new UsageError(`--http must be a port, a whole number from 0 to 65535, not ${http}`);
    if (!isLoopbackHost(host) && !token) {
      throw new UsageError(`serving MCP on ${host} would open it to the network: set CORTEX_API_TOKEN (clients send it as Authorization: Bearer), or serve on 127.0.0.1`);
    }
    if (token) checkApiToken(token);
  } else if (options.host !== undefined) {
    throw new UsageError('--host goes with --http PORT; over stdio there is nothing to bind');
  }
  const runtime = await Runtime.start(config, { ...runtimeOptions, sandboxWorkers: config.profile.serve.sandbox_workers, startWithoutLlm: true }, out);
  const { skills, problems } = await listSkills(config.paths.skills);
  for (const problem of problems) out.error(`warning: ${problem}`);
  const service = cortexMcpService({ runtime, maxConcurrent: config.profile.serve.max_concurrent, skills });
  const stopped = new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  try {
    if (http !== undefined) {
      const policy = { loopback: isLoopbackHost(host), allowedOrigins: config.profile.serve.allowed_origins, ...(token ? { token } : {}) };
      let endpoint;
      try {
        endpoint = await startMcpHttp({ factory: service.factory, host, port: http, policy, log: (line) => out.info(line) });
      } catch (err) {
        throw new UsageError(`cannot listen on ${host}:${http}: ${(err as Error).message}`, { cause: err });
      }
      out.line(`Cortex-R is serving MCP on ${endpoint.url} (Ctrl-C to stop)`);
      await stopped;
      await endpoint.close();
    } else {
      const transport = new LimitedStdioTransport();
      const closed = new Promise<void>((resolve) => {
        process.stdin.once('end', resolve);
        process.stdin.once('close', resolve);
      });
      // A message past the size limit is answered with an error and dropped; the connection stays up.
      const handle = serveStdio(service.factory, { transport, onerror: (err) => out.info(`cortex mcp: ${err.message}`) });
      out.info('cortex mcp: ready on stdio');
      await Promise.race([closed, stopped]);
      await handle.close().catch(() => undefined);
    }
  } finally {
    await service.close();
    await runtime.close();
  }
  return EXIT.ok;
}

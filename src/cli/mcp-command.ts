// `cortex mcp`: Cortex-R as an MCP server over stdio. stdout carries the protocol only; every log goes to stderr.
import type { LoadedConfig } from '../config/load-config.js';
import { buildCortexMcpServer } from '../serve/mcp-server.js';
import { listSkills } from '../skills/skill-file.js';
import { LimitedStdioTransport } from '../serve/stdio-transport.js';
import { EXIT } from './exit-codes.js';
import type { Output } from './output.js';
import { Runtime, type RuntimeOptions } from '../runtime/runtime.js';

/** Runs until the client closes stdin (or SIGINT / SIGTERM). `out` is used for its stderr methods only. */
export async function mcpCommand(config: LoadedConfig, options: RuntimeOptions, out: Output): Promise<number> {
  const runtime = await Runtime.start(config, { ...options, sandboxWorkers: config.profile.serve.sandbox_workers, startWithoutLlm: true }, out);
  const { skills, problems } = await listSkills(config.paths.skills);
  for (const problem of problems) out.error(`warning: ${problem}`);
  const server = buildCortexMcpServer({ runtime, maxConcurrent: config.profile.serve.max_concurrent, skills });
  try {
    const closed = new Promise<void>((resolve) => {
      server.server.onclose = resolve;
      process.stdin.once('end', resolve);
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    // A message past the size limit is answered with an error and dropped; the connection stays up.
    server.server.onerror = (err) => out.info(`cortex mcp: ${err.message}`);
    await server.connect(new LimitedStdioTransport());
    out.info('cortex mcp: ready on stdio');
    await closed;
  } finally {
    await server.close().catch(() => undefined);
    await runtime.close();
  }
  return EXIT.ok;
}

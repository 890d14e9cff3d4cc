// `cortex serve`: the HTTP API and the web page, until Ctrl-C or SIGTERM; the URL on stdout, requests logged on stderr.
import type { LoadedConfig } from '../config/load-config.js';
import { UsageError } from '../errors.js';
import { checkApiToken, isLoopbackHost } from '../serve/access-policy.js';
import { startCortexServer } from '../serve/cortex-server.js';
import { EXIT } from './exit-codes.js';
import type { Output } from './output.js';
import { Runtime, type RuntimeOptions } from '../runtime/runtime.js';

/** `--host` and `--port` override the profile's serve section. */
export interface ServeOptions extends RuntimeOptions {
  host?: string;
  port?: number;
}

export async function serveCommand(config: LoadedConfig, options: ServeOptions, out: Output): Promise<number> {
  const { host = config.profile.serve.host, port = config.profile.serve.port, ...runtimeOptions } = options;
  const token = process.env.CORTEX_API_TOKEN?.trim() || undefined;
  if (!isLoopbackHost(host) && !token) {
    throw new UsageError(`serving on ${host} would open the API to the network: set CORTEX_API_TOKEN (clients send it as Authorization: Bearer), or serve on 127.0.0.1`);
  }
  if (token) checkApiToken(token);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new UsageError(`--port must be a whole number from 0 to 65535, not ${port}`);
  const runtime = await Runtime.start(config, { ...runtimeOptions, sandboxWorkers: config.profile.serve.sandbox_workers, startWithoutLlm: true }, out);
  let server;
  try {
    server = await startCortexServer({ runtime, config, host, port, ...(token ? { token } : {}), log: (line) => out.info(out.err.dim(line)) });
  } catch (err) {
    await runtime.close();
    throw new UsageError(`cannot listen on ${host}:${port}: ${(err as Error).message}`, { cause: err });
  }
  out.line(`Cortex-R is serving on ${server.url}/ (Ctrl-C to stop)`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  out.info('stopping…');
  await server.close();
  await runtime.close();
  return EXIT.ok;
}

// `cortex servers login ID` and `cortex servers logout ID`: sign in to a remote MCP server, or forget the sign-in.
import { createInterface } from 'node:readline/promises';
import type { LoadedConfig } from '../config/load-config.js';
import type { ServerSpec } from '../config/server-spec.js';
import { UsageError } from '../errors.js';
import { oauthStoreOf } from '../mcp/multi-mcp.js';
import { login } from '../mcp/oauth/login.js';
import { openBrowser } from '../mcp/oauth/open-browser.js';
import { EXIT } from './exit-codes.js';
import type { Output } from './output.js';

function remoteServer(config: LoadedConfig, id: string): ServerSpec {
  const spec = config.servers.find((s) => s.id === id);
  if (!spec) {
    const known = config.servers.filter((s) => s.url).map((s) => s.id).join(', ') || '(none)';
    throw new UsageError(`no MCP server "${id}" in ${config.profileFile}; remote servers configured: ${known}`);
  }
  if (!spec.url) throw new UsageError(`MCP server "${id}" runs on this machine (stdio); only remote (http, sse) servers sign in`);
  return spec;
}

/** Signs in to a remote server in the browser (its URL printed too) and stores the tokens; exit 0 when signed in. */
export async function serversLogin(config: LoadedConfig, id: string, out: Output): Promise<number> {
  const spec = remoteServer(config, id);
  // The URL goes to stderr with the other progress lines; stdout keeps only the result.
  const io = { open: openBrowser, say: (line: string) => out.error(line) };
  // On a terminal the person may paste the address a browser on another machine ended on.
  const rl = process.stdin.isTTY ? createInterface({ input: process.stdin, output: process.stderr, terminal: true }) : undefined;
  try {
    await login(spec, oauthStoreOf(config), rl ? { ...io, readPasted: (signal) => rl.question('', { signal }) } : io);
  } finally {
    rl?.close();
  }
  if (out.json) out.result({ server: id, signed_in: true });
  else out.line(`Signed in to "${id}".`);
  return EXIT.ok;
}

/** Forgets a server's stored sign-in (tokens and the client registered for it). */
export async function serversLogout(config: LoadedConfig, id: string, out: Output): Promise<number> {
  const spec = remoteServer(config, id);
  const had = oauthStoreOf(config).remove(spec.url!);
  if (out.json) out.result({ server: id, signed_out: had });
  else out.line(had ? `Signed out of "${id}".` : `"${id}" had no stored sign-in.`);
  return EXIT.ok;
}

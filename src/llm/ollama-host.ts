// Where the Ollama server is: models.yaml base_url, else OLLAMA_HOST (read as the Ollama CLI reads it), else the default.
import { ConfigError } from '../errors.js';

/** Ollama's own default port. */
export const OLLAMA_DEFAULT_PORT = '11434';
/** Where Ollama listens when nobody configured anything. */
export const DEFAULT_OLLAMA_HOST = `http://127.0.0.1:${OLLAMA_DEFAULT_PORT}`;

/**
 * The base URL of the Ollama server, e.g. `http://127.0.0.1:11434`.
 * `baseUrl` (models.yaml) wins over `env.OLLAMA_HOST`; both accept what `ollama` accepts:
 * `host`, `host:port`, `:port`, `scheme://host[:port][/path]`, `[ipv6]:port`. Without a scheme
 * the port defaults to 11434; with one, to 80/443. The listen-everywhere addresses `0.0.0.0`
 * and `::` (common in OLLAMA_HOST, which the server also reads) mean the local machine here.
 * @throws ConfigError when the value cannot be read as a host.
 */
export function resolveOllamaHost(baseUrl: string | undefined, env: NodeJS.ProcessEnv): string {
  const fromConfig = baseUrl?.trim();
  if (fromConfig) return normalizeOllamaHost(fromConfig, 'models.yaml', 'base_url');
  const fromEnv = env.OLLAMA_HOST?.trim();
  if (fromEnv) return normalizeOllamaHost(fromEnv, 'environment', 'OLLAMA_HOST');
  return DEFAULT_OLLAMA_HOST;
}

function normalizeOllamaHost(raw: string, file: string, key: string): string {
  let scheme = 'http';
  let rest = raw;
  let defaultPort = OLLAMA_DEFAULT_PORT;
  const sep = raw.indexOf('://');
  if (sep >= 0) {
    scheme = raw.slice(0, sep).toLowerCase();
    rest = raw.slice(sep + 3);
    defaultPort = scheme === 'https' ? '443' : '80';
  }
  if (scheme !== 'http' && scheme !== 'https') {
    throw new ConfigError(file, key, `an Ollama host like 127.0.0.1:11434 or http://host:port (got "${raw}")`);
  }
  const slash = rest.indexOf('/');
  const hostport = slash >= 0 ? rest.slice(0, slash) : rest;
  const path = slash >= 0 ? rest.slice(slash).replace(/\/+$/, '') : '';

  let host: string;
  let port: string | undefined;
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(hostport);
  if (bracketed) {
    host = bracketed[1]!;
    port = bracketed[2];
  } else if ((hostport.match(/:/g) ?? []).length > 1) {
    host = hostport; // a bare IPv6 address such as ::1
  } else {
    const [name, portText] = hostport.split(':');
    host = name!;
    port = portText;
  }
  if (port !== undefined && !/^\d{1,5}$/.test(port)) {
    throw new ConfigError(file, key, `a port number after the colon (got "${raw}")`);
  }
  if (host === '' || host === '0.0.0.0') host = '127.0.0.1';
  if (host === '::') host = '::1';
  const hostText = host.includes(':') ? `[${host}]` : host;
  const url = `${scheme}://${hostText}:${port ?? defaultPort}${path}`;
  try {
    new URL(url);
  } catch (err) {
    throw new ConfigError(file, key, `an Ollama host like 127.0.0.1:11434 or http://host:port (got "${raw}")`, {
      cause: err,
    });
  }
  return url;
}

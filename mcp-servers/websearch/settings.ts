// Reads the websearch server's settings from environment variables (profiles.yaml passes `env` to each server).
import type { WebsearchServerOptions } from './build-server.js';

/** The environment variables the server reads; every one is optional. */
export const WEBSEARCH_ENV = {
  /** Search endpoint speaking DuckDuckGo's HTML-endpoint format. Default https://html.duckduckgo.com/html/. */
  searchUrl: 'CORTEX_DDG_URL',
  /** true/false: also refuse private, loopback and other local addresses (profiles.yaml security.block_private_network). Default true. */
  blockPrivateNetwork: 'CORTEX_BLOCK_PRIVATE_NETWORK',
  /** Searches allowed in any one minute. Default 30. */
  searchesPerMinute: 'CORTEX_WEBSEARCH_SEARCHES_PER_MINUTE',
  /** Page downloads allowed in any one minute. Default 20. */
  fetchesPerMinute: 'CORTEX_WEBSEARCH_FETCHES_PER_MINUTE',
  /** Deadline of one search or download (DNS, redirects and body), in milliseconds. Default 10000. */
  timeoutMs: 'CORTEX_WEBSEARCH_TIMEOUT_MS',
} as const;

/** A setting that cannot be used; main.ts prints it and exits. */
export class WebsearchSettingsError extends Error {
  constructor(
    readonly variable: string,
    expected: string,
    got: string,
  ) {
    super(`${variable}: expected ${expected}, got ${JSON.stringify(got)}`);
    this.name = 'WebsearchSettingsError';
  }
}

const TRUE_WORDS = new Set(['1', 'true', 'yes', 'on']);
const FALSE_WORDS = new Set(['0', 'false', 'no', 'off']);

function readBoolean(env: NodeJS.ProcessEnv, name: string): boolean | undefined {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return undefined;
  if (TRUE_WORDS.has(raw.toLowerCase())) return true;
  if (FALSE_WORDS.has(raw.toLowerCase())) return false;
  throw new WebsearchSettingsError(name, 'true or false', raw);
}

function readInt(env: NodeJS.ProcessEnv, name: string, min: number, max: number): number | undefined {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return undefined;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < min || value > max) throw new WebsearchSettingsError(name, `a whole number from ${min} to ${max}`, raw);
  return value;
}

function readHttpUrl(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new WebsearchSettingsError(name, 'an absolute http:// or https:// URL', raw);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new WebsearchSettingsError(name, 'an absolute http:// or https:// URL', raw);
  return url.href;
}

/**
 * The server options set by environment variables (see {@link WEBSEARCH_ENV}); unset or empty variables are left
 * out so the server's defaults apply, except the network policy: run on its own (no variable), the server refuses
 * private and loopback addresses, as the documents server does. Throws {@link WebsearchSettingsError} naming the
 * variable for a bad value.
 */
export function readWebsearchSettings(env: NodeJS.ProcessEnv): WebsearchServerOptions {
  const options: WebsearchServerOptions = { blockPrivateNetwork: true };
  const searchUrl = readHttpUrl(env, WEBSEARCH_ENV.searchUrl);
  if (searchUrl !== undefined) options.searchUrl = searchUrl;
  const block = readBoolean(env, WEBSEARCH_ENV.blockPrivateNetwork);
  if (block !== undefined) options.blockPrivateNetwork = block;
  const searches = readInt(env, WEBSEARCH_ENV.searchesPerMinute, 1, 10_000);
  if (searches !== undefined) options.searchesPerMinute = searches;
  const fetches = readInt(env, WEBSEARCH_ENV.fetchesPerMinute, 1, 10_000);
  if (fetches !== undefined) options.fetchesPerMinute = fetches;
  const timeout = readInt(env, WEBSEARCH_ENV.timeoutMs, 100, 120_000);
  if (timeout !== undefined) options.timeoutMs = timeout;
  return options;
}

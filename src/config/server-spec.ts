// An MCP server as the config resolved it: ready to spawn (stdio) or to connect to (HTTP / SSE).

/** stdio spawns `command`; http speaks Streamable HTTP to `url` (falling back to SSE); sse speaks the older SSE transport. */
export type ServerTransport = 'stdio' | 'http' | 'sse';

/**
 * A pre-registered OAuth client for a remote server (Claude Code's `"oauth"` entry). Without one the client registers
 * itself with the authorization server (dynamic client registration).
 */
export interface OAuthEntry {
  clientId?: string;
  clientSecret?: string;
  /** Default authorization_code (a person signs in in a browser); client_credentials for machine-to-machine servers. */
  grantType?: 'authorization_code' | 'client_credentials';
  /** PEM private key for private_key_jwt client authentication (with client_credentials). */
  privateKey?: string;
  /** JWT signing algorithm for `privateKey`, e.g. RS256 (the default) or ES256. */
  signingAlgorithm?: string;
  /** Scopes to ask for, space-separated; default those the server says it supports. */
  scope?: string;
  /** Fixed port of the loopback redirect, for a client registered with one redirect URI. */
  callbackPort?: number;
  /**
   * HTTPS URL of a client ID metadata document the user hosts (SEP-991): used as the client_id with an authorization
   * server that accepts such documents, instead of registering. Default profiles.yaml `mcp.oauth_client_metadata_url`.
   */
  clientMetadataUrl?: string;
}

/** An MCP server ready to start: absolute paths, its own environment (nothing else of ours crosses). */
export interface ServerSpec {
  id: string;
  command: string;
  args: string[];
  cwd: string;
  /** Exactly what this server gets on top of the minimal base (PATH, HOME, locale): see server-env.ts. */
  env: Record<string, string>;
  description: string;
  capabilities: string[];
  /** Default stdio. */
  transport?: ServerTransport;
  /** For http and sse. */
  url?: string;
  /** HTTP headers sent to a remote server (e.g. Authorization). */
  headers?: Record<string, string>;
  /** OAuth client settings of a remote server (see OAuthEntry). */
  oauth?: OAuthEntry;
  /** The entry's own `timeout` for one request, when it gives one (`cortex servers test` honours it). */
  callTimeoutMs?: number;
  /** How long starting (spawn, initialize, tools/list) may take; default DEFAULT_SERVER_START_TIMEOUT_MS. */
  startTimeoutMs?: number;
  /** Where the entry was written (`file:line`), for messages. */
  source?: string;
}

/** A configured server that will not start: `disabled: true`, or an entry that could not be used. */
export interface DisabledServer {
  id: string;
  /** 'disabled' when the config says so; 'broken' when the entry is unusable (see `reason`). */
  kind: 'disabled' | 'broken';
  /** One line: `file:line: key: what is wrong`. */
  reason: string;
  /** Where the entry is: `file:line`, or the file alone when the line is not known. */
  source: string;
}

/** SEP-991: a client ID metadata document is named by an https URL with a path other than `/`. */
export function isClientMetadataUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' && url.pathname !== '/';
  } catch {
    return false;
  }
}

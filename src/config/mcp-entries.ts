// MCP server entries as people write them — our profile's, Claude Desktop's, Claude Code's, VS Code's, Cursor's — into ServerSpecs.
import { readFileSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, resolve } from 'node:path';
import { parseEnv } from 'node:util';
import stripJsonComments from 'strip-json-comments';
import { isNode } from 'yaml';
import { z } from 'zod';
import { ConfigError } from '../errors.js';
import { expandVars, type ExpandContext } from './expand-vars.js';
import { MAX_ALIAS_COUNT, parse } from './parse.js';
import { ownServerKind, type OwnServerKind } from './server-env.js';
import { isClientMetadataUrl, type DisabledServer, type OAuthEntry, type ServerSpec, type ServerTransport } from './server-spec.js';

/** Default time a server may take to start: a cold `npx -y` install alone takes 11–13 s, four at once far more. */
export const DEFAULT_SERVER_START_TIMEOUT_MS = 90_000;
/** Bounds of a configured `timeout`, so a typo can neither fail every start nor hang for hours. */
const MIN_START_TIMEOUT_MS = 1_000;
const MAX_START_TIMEOUT_MS = 600_000;
/** A `timeout` up to this is in seconds (Cline, Roo Code), above it in milliseconds (Gemini CLI). */
const MAX_TIMEOUT_SECONDS = 3_600;
/** An envFile larger than this is refused unread. */
const MAX_ENV_FILE_BYTES = 100_000;
/** Ids are shown on one line and used as keys; any characters, but not unbounded. */
const MAX_ID_CHARS = 100;

/** The servers of one config source: those to start, those that will not, and what was ignored. */
export interface ServerEntries {
  specs: ServerSpec[];
  disabled: DisabledServer[];
  /** One line each: `file:line: key is not used by cortex (ignored)` and the like. Never fatal. */
  warnings: string[];
}

/** How entries of one file resolve. */
export interface EntryContext {
  file: string;
  /** Relative paths (script, cwd, envFile) resolve against this folder; see projectRootOf. */
  root: string;
  /** For `${VAR}` expansion and envFile. */
  env: NodeJS.ProcessEnv;
  /** Environment of each of our own servers (server-env.ts ownServerEnv). */
  own: Record<OwnServerKind, Record<string, string>>;
  /** profiles.yaml mcp.start_timeout_ms. */
  startTimeoutMs: number;
  /** profiles.yaml mcp.oauth_client_metadata_url: the client ID metadata document of entries that name none. */
  clientMetadataUrl?: string;
}

const scalar = z.union([z.string(), z.number(), z.boolean()]).transform(String);
const TRANSPORTS: Record<string, ServerTransport> = {
  stdio: 'stdio',
  http: 'http',
  'streamable-http': 'http',
  streamableHttp: 'http',
  sse: 'sse',
};

/** Every key we read; other keys (autoApprove, alwaysAllow, …) are reported and ignored. */
const EntrySchema = z.looseObject({
  id: z.string().optional(),
  type: z.string().optional(),
  transport: z.string().optional(),
  script: z.string().min(1).optional(),
  command: z.string().min(1).optional(),
  args: z.array(scalar).default([]),
  cwd: z.string().optional(),
  env: z.record(z.string(), scalar.nullable()).nullable().default({}),
  envFile: z.string().optional(),
  url: z.string().optional(),
  serverUrl: z.string().optional(),
  httpUrl: z.string().optional(),
  headers: z.record(z.string(), scalar).nullable().default({}),
  disabled: z.boolean().default(false),
  timeout: z.number().positive().optional(),
  description: z.string().default(''),
  capabilities: z.array(z.string()).default([]),
  /** A pre-registered OAuth client, in the shape Claude Code's .mcp.json uses. */
  oauth: z
    .strictObject({
      clientId: z.string().min(1).optional(),
      clientSecret: z.string().min(1).optional(),
      grantType: z.enum(['authorization_code', 'client_credentials']).optional(),
      privateKey: z.string().min(1).optional(),
      signingAlgorithm: z.string().min(1).optional(),
      scope: z.string().min(1).optional(),
      callbackPort: z.number().int().min(1).max(65_535).optional(),
      clientMetadataUrl: z.string().min(1).optional(),
    })
    .optional(),
});
type Entry = z.infer<typeof EntrySchema>;
const KNOWN_ENTRY_KEYS = new Set(Object.keys(EntrySchema.shape));

/** Top-level keys a client config file may hold that we read, or know and skip quietly. */
const CLIENT_FILE_KEYS = new Set(['mcpServers', 'servers', 'mcp', 'inputs']);

/**
 * The folder relative paths in a config file resolve against: the file's folder, or its parent when that folder is
 * `config`, `.vscode` or `.cursor` (config/profiles.yaml, .vscode/mcp.json and .cursor/mcp.json belong to the
 * project above them).
 */
export function projectRootOf(file: string): string {
  const folder = dirname(resolve(file));
  return ['config', '.vscode', '.cursor'].includes(basename(folder)) ? dirname(folder) : folder;
}

/** A parsed config text with line lookup. */
interface LocatedDoc {
  data: unknown;
  lineOf(path: Array<string | number>): number | undefined;
}

function locate(text: string, file: string): LocatedDoc {
  // JSON with comments and trailing commas (VS Code's mcp.json, Cursor's) becomes JSON; positions are kept.
  const source = text.trimStart().startsWith('{') ? stripJsonComments(text, { trailingCommas: true }) : text;
  const { doc, lineCounter } = parse(source);
  const syntax = doc.errors[0];
  if (syntax) {
    const { line, col } = lineCounter.linePos(syntax.pos[0]);
    throw new ConfigError(file, '', `column ${col}: ${syntax.message.split('\n')[0]}`, { line });
  }
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (err) {
    throw new ConfigError(file, '', `could not be read: ${(err as Error).message}`, { cause: err });
  }
  return {
    data,
    lineOf(path) {
      const node = doc.getIn(path, true);
      return isNode(node) && node.range ? lineCounter.linePos(node.range[0]).line : undefined;
    },
  };
}

/**
 * The servers of a client config file given with `--mcp-config`: Claude Desktop / Claude Code / Cursor
 * (`mcpServers`), VS Code (`servers`, `inputs`, or `mcp.servers` in settings.json); JSON with comments or YAML.
 * Unknown keys are warnings; a broken entry disables that server only.
 * @throws ConfigError when the file is not JSON/YAML or holds no server map at all.
 */
export function readClientConfig(text: string, ctx: EntryContext): ServerEntries {
  const doc = locate(text, ctx.file);
  const data = doc.data;
  if (!isRecord(data)) throw new ConfigError(ctx.file, '', 'expected an object with "mcpServers" (or VS Code\'s "servers")');
  const result: ServerEntries = { specs: [], disabled: [], warnings: [] };
  for (const key of Object.keys(data)) {
    if (!CLIENT_FILE_KEYS.has(key)) result.warnings.push(`${where(ctx.file, doc.lineOf([key]))}${key} is not used by cortex (ignored)`);
  }
  const maps: Array<[string[], unknown]> = [];
  if ('mcpServers' in data) maps.push([['mcpServers'], data.mcpServers]);
  if ('servers' in data) maps.push([['servers'], data.servers]);
  if (isRecord(data.mcp) && 'servers' in data.mcp) maps.push([['mcp', 'servers'], data.mcp.servers]);
  if (maps.length === 0) throw new ConfigError(ctx.file, '', 'holds no "mcpServers" (or VS Code "servers") object');
  for (const [path, map] of maps) {
    if (!isRecord(map)) throw new ConfigError(ctx.file, path.join('.'), 'expected an object of servers keyed by id', { line: doc.lineOf(path) });
    for (const [id, raw] of Object.entries(map)) addEntry(result, id, raw, [...path, id], doc, ctx);
  }
  return result;
}

/**
 * The servers of a profile: `mcp_servers` (a list in the original's shape, each with an `id`) and `mcpServers` (the
 * map other clients use). `text` is the profile's text, read again only for line numbers.
 */
export function readProfileServers(
  lists: { mcp_servers: unknown[]; mcpServers?: Record<string, unknown> | undefined },
  text: string,
  ctx: EntryContext,
): ServerEntries {
  const result: ServerEntries = { specs: [], disabled: [], warnings: [] };
  if (lists.mcp_servers.length === 0 && !lists.mcpServers) return result;
  const doc = locate(text, ctx.file);
  lists.mcp_servers.forEach((raw, index) => {
    const id = isRecord(raw) && typeof raw.id === 'string' ? raw.id.trim() : '';
    if (id) return addEntry(result, id, raw, ['mcp_servers', index], doc, ctx);
    const line = doc.lineOf(['mcp_servers', index]);
    const reason = `${where(ctx.file, line)}mcp_servers.${index}.id: each entry needs an id (a string)`;
    result.disabled.push({ id: `mcp_servers.${index}`, kind: 'broken', reason, source: location(ctx.file, line) });
  });
  for (const [id, raw] of Object.entries(lists.mcpServers ?? {})) addEntry(result, id, raw, ['mcpServers', id], doc, ctx);
  return result;
}

function addEntry(result: ServerEntries, id: string, raw: unknown, path: Array<string | number>, doc: LocatedDoc, ctx: EntryContext): void {
  const line = doc.lineOf(path);
  const at = where(ctx.file, line);
  const source = location(ctx.file, line);
  const name = path.join('.');
  const broken = (key: string, message: string): void => {
    result.disabled.push({ id, kind: 'broken', reason: `${where(ctx.file, doc.lineOf([...path, key]) ?? line)}${key ? `${name}.${key}` : name}: ${message}`, source });
  };
  if (!id.trim() || id.length > MAX_ID_CHARS || /[\n\r]/.test(id)) return broken('', `a server id must be 1 to ${MAX_ID_CHARS} characters on one line`);
  const parsed = EntrySchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return broken(issue.path.map(String).join('.'), issue.message);
  }
  const entry = parsed.data;
  for (const key of Object.keys(raw as object)) {
    if (!KNOWN_ENTRY_KEYS.has(key)) result.warnings.push(`${where(ctx.file, doc.lineOf([...path, key]) ?? line)}${name}.${key} is not used by cortex (ignored)`);
  }
  if (entry.disabled) {
    result.disabled.push({ id, kind: 'disabled', reason: `${at}${name}: disabled in the config`, source });
    return;
  }
  const made = toSpec(id, entry, ctx);
  if ('error' in made) return broken(made.key, made.error);
  result.specs.push({ ...made.spec, source });
}

type Made = { spec: ServerSpec } | { key: string; error: string };

function toSpec(id: string, entry: Entry, ctx: EntryContext): Made {
  const expand: ExpandContext = { env: ctx.env, workspaceFolder: ctx.root };
  const missing: string[] = [];
  const x = (text: string) => {
    const out = expandVars(text, expand);
    missing.push(...out.missing);
    return out.value;
  };
  const at = (p: string) => (isAbsolute(p) ? p : resolve(ctx.root, p));
  const typeName = entry.type ?? entry.transport;
  const url = entry.url ?? entry.serverUrl ?? entry.httpUrl;
  let transport: ServerTransport = url ? 'http' : 'stdio';
  if (typeName !== undefined) {
    const known = TRANSPORTS[typeName];
    if (!known) return { key: 'type', error: `"${typeName}" is not a transport; use stdio, http or sse` };
    transport = known;
  }
  const startTimeoutMs = entry.timeout === undefined ? ctx.startTimeoutMs : timeoutMs(entry.timeout);
  const base = { id, description: entry.description, capabilities: entry.capabilities, startTimeoutMs, ...(entry.timeout === undefined ? {} : { callTimeoutMs: startTimeoutMs }) };

  if (transport !== 'stdio') {
    if (!url) return { key: 'url', error: `a ${transport} server needs a url` };
    const expanded = x(url);
    if (missing.length) return { key: 'url', error: notSet(missing) };
    let parsed: URL;
    try {
      parsed = new URL(expanded);
    } catch {
      return { key: 'url', error: `"${expanded}" is not an absolute URL` };
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return { key: 'url', error: 'expected an http:// or https:// URL' };
    const headers = Object.fromEntries(Object.entries(entry.headers ?? {}).map(([k, v]) => [k, x(v)]));
    if (missing.length) return { key: 'headers', error: notSet(missing) };
    // Secrets are usually given as ${VAR}; they are expanded here and never logged.
    const own = entry.oauth ? Object.fromEntries(Object.entries(entry.oauth).map(([k, v]) => [k, typeof v === 'string' ? x(v) : v])) : undefined;
    if (missing.length) return { key: 'oauth', error: notSet(missing) };
    const oauth = ctx.clientMetadataUrl && own?.clientMetadataUrl === undefined ? { ...own, clientMetadataUrl: ctx.clientMetadataUrl } : own;
    if (typeof oauth?.clientMetadataUrl === 'string' && !isClientMetadataUrl(oauth.clientMetadataUrl)) {
      return { key: 'oauth', error: `clientMetadataUrl "${oauth.clientMetadataUrl}" must be an https:// URL with a path (where the client ID metadata document is served)` };
    }
    if (oauth?.grantType === 'client_credentials' && !oauth.clientId) return { key: 'oauth', error: 'client_credentials needs a clientId' };
    if (oauth?.privateKey && !oauth.clientId) return { key: 'oauth', error: 'a privateKey needs a clientId' };
    return { spec: { ...base, transport, url: parsed.href, headers, ...(oauth ? { oauth: oauth as OAuthEntry } : {}), command: '', args: [], cwd: ctx.root, env: {} } };
  }

  if (Boolean(entry.script) === Boolean(entry.command)) {
    return { key: entry.script ? 'command' : '', error: 'give exactly one of `command` (with `args`) or `script` (a .js file run with this Node)' };
  }
  const args = entry.args.map(x);
  const script = entry.script ? at(x(entry.script)) : undefined;
  const command = script ? process.execPath : x(entry.command!);
  const cwd = at(x(entry.cwd ?? '.'));
  const fromFile = entry.envFile ? readEnvFile(at(x(entry.envFile))) : {};
  if (typeof fromFile === 'string') return { key: 'envFile', error: fromFile };
  const own = ownEnvOf(script, command, args, ctx);
  const env: Record<string, string> = { ...own, ...fromFile };
  for (const [k, v] of Object.entries(entry.env ?? {})) if (v !== null) env[k] = x(v);
  if (missing.length) return { key: 'env', error: notSet(missing) };
  return { spec: { ...base, transport: 'stdio', command, args: script ? [script, ...args] : args, cwd, env } };
}

/** Our servers get their CORTEX_* settings whether written as `script: dist/…` or `command: node, args: [dist/…]`. */
function ownEnvOf(script: string | undefined, command: string, args: string[], ctx: EntryContext): Record<string, string> {
  const isNode = script !== undefined || command === process.execPath || basename(command) === 'node';
  const file = script ?? (isNode && args[0] ? resolve(ctx.root, args[0]) : undefined);
  const kind = file ? ownServerKind(file) : null;
  return kind ? ctx.own[kind] : {};
}

function readEnvFile(file: string): Record<string, string> | string {
  try {
    const size = statSync(file).size;
    if (size > MAX_ENV_FILE_BYTES) return `${file} is larger than ${MAX_ENV_FILE_BYTES} bytes`;
    return parseEnv(readFileSync(file, 'utf8')) as Record<string, string>;
  } catch (err) {
    return `${file} could not be read (${(err as NodeJS.ErrnoException).code ?? err})`;
  }
}

function timeoutMs(value: number): number {
  const ms = value <= MAX_TIMEOUT_SECONDS ? value * 1000 : value;
  return Math.round(Math.min(MAX_START_TIMEOUT_MS, Math.max(MIN_START_TIMEOUT_MS, ms)));
}

function notSet(missing: string[]): string {
  const inputs = missing.filter((m) => m.startsWith('${input:'));
  if (inputs.length) return `${inputs[0]} asks for a value cortex cannot prompt for; put it in env as \${env:NAME}`;
  return `${[...new Set(missing)].join(', ')} is not set in the environment (give a default with \${NAME:-value})`;
}

/** `file:line`, or the file alone when the line is not known. */
function location(file: string, line: number | undefined): string {
  return line ? `${file}:${line}` : file;
}

/** The prefix of a message about that place: `file:line: `. */
function where(file: string, line: number | undefined): string {
  return `${location(file, line)}: `;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

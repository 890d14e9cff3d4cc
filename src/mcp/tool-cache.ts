// Tool lists and instructions of MCP servers kept between runs, so perception and the catalogue need not wait for slow servers.
import { createHash } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { ServerSpec } from '../config/server-spec.js';
import { writeFileAtomic } from '../atomic-write.js';
import type { ToolInfo } from './types.js';

/** A cache file larger than this is ignored (and rewritten): it cannot be one of ours. */
const MAX_CACHE_BYTES = 20 * 1024 * 1024;
/** Servers remembered; the least recently started are dropped past this. */
const MAX_CACHED_SERVERS = 200;
const CACHE_FORMAT = 1;

/** What one server offered the last time it started. */
export interface CachedServer {
  /** `name@version` the server reported; a live start that reports another replaces the entry. */
  serverVersion: string;
  instructions: string;
  tools: Array<Omit<ToolInfo, 'server'>>;
  /** The MCP protocol version it spoke, so the next run's first start goes straight to it. */
  protocolVersion?: string;
  /** Until when (epoch ms) the server said its tool list stays fresh (2026-07-28 `ttlMs`): not listed again before. */
  toolsFreshUntil?: number;
  savedAt: string;
}

interface CacheFile {
  format: number;
  servers: Record<string, CachedServer>;
}

/** The cache key: how the server is started (transport, command, args, url, cwd), never its env (secrets). */
function cacheKey(spec: ServerSpec): string {
  const how = [spec.transport ?? 'stdio', spec.command, spec.args, spec.url ?? '', spec.cwd];
  return createHash('sha256').update(JSON.stringify(how)).digest('hex').slice(0, 32);
}

/** A JSON file of CachedServer entries. Reads never throw (a bad file is an empty cache); writes are atomic. */
export class ToolCache {
  private writing: Promise<void> = Promise.resolve();
  /** True while a write waits its turn: later puts join it, as it writes the data as they left it. */
  private queued = false;

  private constructor(
    private readonly file: string,
    private readonly data: CacheFile,
  ) {}

  /** Loads the cache at `file`; a missing, oversized or unreadable file gives an empty cache. */
  static async load(file: string): Promise<ToolCache> {
    let data: CacheFile = { format: CACHE_FORMAT, servers: {} };
    try {
      const text = await readFile(file, 'utf8');
      const parsed = text.length <= MAX_CACHE_BYTES ? (JSON.parse(text) as CacheFile) : undefined;
      if (parsed?.format === CACHE_FORMAT && typeof parsed.servers === 'object' && parsed.servers) data = parsed;
    } catch {
      // No cache yet, or a broken one: servers are listed live and the file is rewritten.
    }
    return new ToolCache(file, data);
  }

  /** What `spec` offered last time, with `server` set to its current id. */
  get(spec: ServerSpec): { serverVersion: string; instructions: string; tools: ToolInfo[]; protocolVersion?: string; toolsFreshUntil?: number } | undefined {
    const entry = this.data.servers[cacheKey(spec)];
    if (!entry || !Array.isArray(entry.tools)) return undefined;
    const protocol = typeof entry.protocolVersion === 'string' ? { protocolVersion: entry.protocolVersion } : {};
    const fresh = typeof entry.toolsFreshUntil === 'number' ? { toolsFreshUntil: entry.toolsFreshUntil } : {};
    return { serverVersion: entry.serverVersion, instructions: entry.instructions ?? '', tools: entry.tools.map((t) => ({ ...t, server: spec.id })), ...protocol, ...fresh };
  }

  /** Records what a live start listed and writes the file (serialised, atomic). Never throws. */
  put(spec: ServerSpec, live: { serverVersion: string; instructions: string; tools: ToolInfo[]; protocolVersion?: string; toolsFreshUntil?: number }): Promise<void> {
    const tools = live.tools.map(({ server: _server, ...rest }) => rest);
    const key = cacheKey(spec);
    const old = this.data.servers[key];
    const same = old && old.serverVersion === live.serverVersion && old.instructions === live.instructions && old.protocolVersion === live.protocolVersion && old.toolsFreshUntil === live.toolsFreshUntil;
    if (same && JSON.stringify(old.tools) === JSON.stringify(tools)) {
      return this.writing;
    }
    delete this.data.servers[key];
    const protocol = live.protocolVersion ? { protocolVersion: live.protocolVersion } : {};
    const fresh = live.toolsFreshUntil !== undefined ? { toolsFreshUntil: live.toolsFreshUntil } : {};
    this.data.servers[key] = { serverVersion: live.serverVersion, instructions: live.instructions, tools, ...protocol, ...fresh, savedAt: new Date().toISOString() };
    const keys = Object.keys(this.data.servers);
    for (const stale of keys.slice(0, Math.max(0, keys.length - MAX_CACHED_SERVERS))) delete this.data.servers[stale];
    if (!this.queued) {
      this.queued = true;
      this.writing = this.writing
        .then(() => {
          this.queued = false;
          return this.write();
        })
        .catch(() => undefined);
    }
    return this.writing;
  }

  private async write(): Promise<void> {
    const text = JSON.stringify(this.data);
    if (text.length > MAX_CACHE_BYTES) return;
    await mkdir(dirname(this.file), { recursive: true });
    await writeFileAtomic(this.file, text);
  }
}

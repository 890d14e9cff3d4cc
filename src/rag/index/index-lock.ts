// The indexer's lock file: created with O_EXCL, holding the owner's pid and host; a lock whose owner is gone is taken over.
import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rm, stat } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { IndexLockedError } from '../errors.js';

/** Name of the lock file inside the index folder. */
export const INDEX_LOCK_FILE = 'index.lock';
/** Poll interval while waiting for another indexer to finish. */
export const LOCK_POLL_MS = 100;
/** A lock file we cannot parse is another process mid-write; past this age it is debris from a crash. */
export const UNREADABLE_LOCK_STALE_MS = 10_000;
/** Stale locks cleared in one acquire before giving up: more means something keeps recreating them. */
const MAX_STALE_TAKEOVERS = 10;

/** Lock tokens this process holds: a lock file with our pid but a token not in here was left by an earlier process that had our pid. */
const heldTokens = new Set<string>();

interface LockContent {
  pid: number;
  host: string;
  token: string;
  started_at: string;
}

/** A held lock; release() removes the file if it is still ours. */
export interface IndexLock {
  readonly path: string;
  release(): Promise<void>;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function parseLock(text: string): LockContent | null {
  try {
    const value = JSON.parse(text) as Partial<LockContent>;
    if (typeof value.pid === 'number' && typeof value.host === 'string' && typeof value.token === 'string') return value as LockContent;
  } catch {
    // Unparseable: handled by the caller by age.
  }
  return null;
}

/** Why the existing lock still holds (a description of its owner), or null when it is stale. */
async function describeHolder(path: string): Promise<string | null> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  const content = parseLock(text);
  if (!content) {
    const age = Date.now() - (await stat(path).catch(() => ({ mtimeMs: 0 }))).mtimeMs;
    return age > UNREADABLE_LOCK_STALE_MS ? null : 'a process that is writing the lock file';
  }
  const who = `pid ${content.pid} on ${content.host} since ${content.started_at}`;
  // Another machine sharing the folder: its pid means nothing here, so the lock is respected.
  if (content.host !== hostname()) return who;
  if (content.pid === process.pid) return heldTokens.has(content.token) ? `${who} (this process)` : null;
  return isAlive(content.pid) ? who : null;
}

/**
 * Takes the lock of the index in `indexDir` (creating the folder), waiting up to `waitMs` for another indexer to
 * finish. A lock whose process is gone (same host, pid not running) or unreadable for 10 s is removed and taken.
 * @throws IndexLockedError when the lock is still held after `waitMs` (default 0: fail at once).
 */
export async function acquireIndexLock(indexDir: string, { waitMs = 0 }: { waitMs?: number } = {}): Promise<IndexLock> {
  await mkdir(indexDir, { recursive: true });
  const path = join(indexDir, INDEX_LOCK_FILE);
  const deadline = Date.now() + waitMs;
  const token = randomBytes(8).toString('hex');
  const content: LockContent = { pid: process.pid, host: hostname(), token, started_at: new Date().toISOString() };
  let takeovers = 0;
  // Bounded by the deadline and MAX_STALE_TAKEOVERS; each pass takes the lock, clears a stale one, or waits LOCK_POLL_MS.
  for (;;) {
    try {
      const handle = await open(path, 'wx', 0o644);
      try {
        await handle.writeFile(JSON.stringify(content));
      } finally {
        await handle.close();
      }
      heldTokens.add(token);
      return {
        path,
        release: async () => {
          heldTokens.delete(token);
          const current = parseLock(await readFile(path, 'utf8').catch(() => ''));
          if (current?.token === token) await rm(path, { force: true });
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const holder = await describeHolder(path);
    if (holder === null) {
      if (++takeovers > MAX_STALE_TAKEOVERS) throw new IndexLockedError(path, 'stale lock files that keep coming back');
      await rm(path, { force: true });
      continue;
    }
    if (Date.now() >= deadline) throw new IndexLockedError(path, holder);
    await new Promise((resolve) => setTimeout(resolve, LOCK_POLL_MS));
  }
}

// Reads one file from the documents folder, refusing anything that is not a regular file inside it.
// Synchronous: it runs on the parse worker's thread, where each call costs microseconds instead of an event-loop round
// trip on the host; a read that hangs (a dead network mount) blocks only that thread, which the host gives up at the
// file's deadline.
import { closeSync, constants, existsSync, fstatSync, lstatSync, openSync, readSync, readlinkSync, realpathSync, type Stats } from 'node:fs';
import { basename, dirname, resolve, sep } from 'node:path';
import { errorMessage } from '../../errors.js';

/** Bytes read per read() call. */
const READ_CHUNK_BYTES = 1 << 20;
/** Bytes asked for by the read that confirms the end of a file (one that grew since its stat reads on). */
const END_PROBE_BYTES = 4096;

export type SafeReadFailure = { ok: false; reason: 'unsafe_path' | 'too_large' | 'parse_error'; message: string };
export type SafeReadResult = { ok: true; bytes: Buffer; realPath: string } | SafeReadFailure;

/** A path that passed the checks that need no open file: inside the folder, symlinks resolved, a regular file. */
export interface ResolvedFile {
  ok: true;
  /** Real path (symlinks resolved), inside the real documents folder. */
  realPath: string;
  rootReal: string;
  /** File name as the caller gave it, for messages. */
  shown: string;
  stats: Stats;
}

/**
 * Real paths found while reading one batch of files, for the next files of the same batch: the documents folder's,
 * and each folder a file was looked up in. Keep one for a batch only (milliseconds): a folder swapped for a symlink
 * after it was resolved is caught by readResolved()'s check of the opened descriptor, like a swap right after a
 * fresh realpath().
 */
export interface RealPathCache {
  /** Real path of each documents folder, by the folder as given. */
  roots: Map<string, string>;
  /** Real path of each folder that held a requested file, by its normalised absolute path. */
  folders: Map<string, string>;
}

export function newRealPathCache(): RealPathCache {
  return { roots: new Map(), folders: new Map() };
}

/**
 * Whether the kernel names the file behind a descriptor (Linux /proc), which readResolved() checks is still inside
 * the folder. Only then are cached folders trusted: without that check, a folder swapped for a symlink during the
 * batch would go unseen (a fresh realpath() per file leaves that window microseconds wide, not a batch wide).
 */
const OPENED_PATHS_KNOWN = existsSync('/proc/self/fd');

/**
 * Accepts `path` only if it is a regular file whose real path (symlinks resolved) lies inside the real
 * path of `root`; a path that leaves the folder is refused before the disk is touched. With a `cache` (one per
 * batch), real paths resolved for earlier files of the batch are reused. Never throws.
 */
export function resolveSafely(root: string, path: string, cache?: RealPathCache): ResolvedFile | SafeReadFailure {
  const shown = basename(path) || path;
  const refuse = (why: string): SafeReadFailure => unsafe(shown, why);
  let rootReal: string;
  try {
    rootReal = cache?.roots.get(root) ?? realpathSync.native(root);
  } catch (err) {
    return { ok: false, reason: 'parse_error', message: `The documents folder ${root} can't be read (${errorMessage(err)}).` };
  }
  cache?.roots.set(root, rootReal);
  if (path.includes('\0')) return refuse('the path contains a NUL character');
  const requested = resolve(root, path);
  // The lexical check catches ../ before touching the disk; the real-path check below catches symlinks.
  if (!isInside(resolve(root), requested) && !isInside(rootReal, requested)) return refuse('it is outside the documents folder');

  const known = cache && OPENED_PATHS_KNOWN ? regularFileInRealFolder(requested, cache.folders) : null;
  let realPath: string;
  try {
    realPath = known?.realPath ?? realpathSync.native(requested);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { ok: false, reason: 'parse_error', message: `${shown} does not exist (or is a broken link).` };
    return { ok: false, reason: 'parse_error', message: `${shown} can't be read (${errorMessage(err)}).` };
  }
  if (!isInside(rootReal, realPath)) return refuse('it resolves (through a symlink) to a place outside the documents folder');
  let stats: Stats;
  try {
    stats = known?.stats ?? lstatSync(realPath);
  } catch (err) {
    return { ok: false, reason: 'parse_error', message: `${shown} can't be read (${errorMessage(err)}).` };
  }
  if (!stats.isFile()) return refuse(`it is ${describeKind(stats)}, not a regular file`);
  return { ok: true, realPath, rootReal, shown, stats };
}

/**
 * The real path and lstat of `requested` (normalised, absolute) when its name, in its folder's real path, is a
 * regular file: then that folder and the name are exactly what realpath() gives, for one lstat instead of a
 * readlink per path component (the folder is resolved once per batch). Null for anything else (a symlink, a missing
 * name, a folder that does not resolve), which resolveSafely() resolves with realpath() as always.
 */
function regularFileInRealFolder(requested: string, folders: Map<string, string>): { realPath: string; stats: Stats } | null {
  const folder = dirname(requested);
  try {
    let realFolder = folders.get(folder);
    if (realFolder === undefined) {
      realFolder = realpathSync.native(folder);
      folders.set(folder, realFolder);
    }
    // The root folder '/' already ends with the separator.
    const realPath = (realFolder.endsWith(sep) ? realFolder : realFolder + sep) + basename(requested);
    const stats = lstatSync(realPath, { throwIfNoEntry: false });
    return stats?.isFile() ? { realPath, stats } : null;
  } catch {
    return null;
  }
}

/**
 * Reads a resolved file through a descriptor opened with O_NOFOLLOW|O_NONBLOCK, after checking that
 * descriptor again (same inode, still a regular file, still inside the folder), so swapping the file
 * after resolveSafely() can't redirect the read. Never throws.
 */
export function readResolved(file: ResolvedFile, maxBytes: number): SafeReadResult {
  const { realPath, rootReal, shown, stats: before } = file;
  if (before.size > maxBytes) return tooLarge(shown, before.size, maxBytes);
  let fd: number;
  try {
    // O_NONBLOCK: if a FIFO was swapped in after lstat, open() returns instead of waiting for a writer.
    fd = openSync(realPath, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') return unsafe(shown, 'it became a symlink while being opened');
    return { ok: false, reason: 'parse_error', message: `${shown} can't be opened (${errorMessage(err)}).` };
  }
  try {
    const after = fstatSync(fd);
    if (!after.isFile()) return unsafe(shown, `it is ${describeKind(after)}, not a regular file`);
    if (after.ino !== before.ino || after.dev !== before.dev) return unsafe(shown, 'it was replaced while being opened');
    // A directory in the path swapped for a symlink between realpath() and open() shows here.
    const opened = openedPath(fd);
    if (opened !== null && !isInside(rootReal, opened)) return unsafe(shown, 'it was moved outside the documents folder while being opened');
    if (after.size > maxBytes) return tooLarge(shown, after.size, maxBytes);
    const bytes = readAtMost(fd, maxBytes + 1, after.size);
    if (bytes.length > maxBytes) return tooLarge(shown, bytes.length, maxBytes, false);
    return { ok: true, bytes, realPath };
  } catch (err) {
    return { ok: false, reason: 'parse_error', message: `${shown} can't be read (${errorMessage(err)}).` };
  } finally {
    try {
      closeSync(fd);
    } catch {
      // Nothing was written; a failed close loses nothing.
    }
  }
}

function unsafe(shown: string, why: string): SafeReadFailure {
  return { ok: false, reason: 'unsafe_path', message: `${shown} was not read: ${why}.` };
}

/**
 * True when `child` lies strictly inside `parent` (not `parent` itself, not a sibling such as `parent-2`). Both must be
 * normalised absolute paths (from resolve(), realpath or the kernel), as every caller's are: for those a prefix test up
 * to a separator gives what path.relative() would (a property test holds it to that), without its three passes.
 */
export function isInside(parent: string, child: string): boolean {
  // The root folder '/' already ends with the separator.
  const prefix = parent.endsWith(sep) ? parent : parent + sep;
  return child.length > prefix.length && child.startsWith(prefix);
}

function tooLarge(name: string, size: number, maxBytes: number, exact = true): SafeReadFailure {
  return { ok: false, reason: 'too_large', message: `${name} is larger than the ${formatBytes(maxBytes)} limit (${formatBytes(size)}${exact ? '' : ' or more'}).` };
}

/** "1.5 MB", "12 KB", "300 B". */
export function formatBytes(bytes: number): string {
  if (bytes >= 2 ** 20) return `${(bytes / 2 ** 20).toFixed(1)} MB`;
  if (bytes >= 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${bytes} B`;
}

function describeKind(st: Stats): string {
  if (st.isDirectory()) return 'a directory';
  if (st.isSymbolicLink()) return 'a symlink';
  if (st.isFIFO()) return 'a named pipe';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  return 'a special file';
}

/** Where the descriptor really points (Linux /proc), or null where that can't be known. */
function openedPath(fd: number): string | null {
  try {
    return readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    return null;
  }
}

/**
 * Reads until EOF or `limit` bytes, whichever comes first, into a Buffer over memory of its own (not a view into
 * Node's shared pool of small Buffers), so the caller may hand its memory over. The size from stat sizes the first read (one byte more):
 * a read that returns exactly that size and no more is the end; any other outcome reads on until a read returns 0.
 */
function readAtMost(fd: number, limit: number, expectedSize: number): Buffer {
  const chunks: Buffer[] = [];
  let total = 0;
  let next = Math.min(READ_CHUNK_BYTES, expectedSize + 1);
  // Bounded: every pass reads at least one byte or ends, and `total` never exceeds `limit`.
  while (total < limit) {
    const chunk = Buffer.allocUnsafe(Math.min(next, limit - total));
    const bytesRead = readSync(fd, chunk, 0, chunk.length, null);
    if (bytesRead === 0) break;
    chunks.push(bytesRead === chunk.length ? chunk : chunk.subarray(0, bytesRead));
    total += bytesRead;
    // Exactly the size stat gave, in a read that asked for more: the end. (Most files end here, in one read.)
    if (total === expectedSize && bytesRead < chunk.length) break;
    // Any other short read is almost surely the end: the next read only confirms it, with a small buffer.
    next = bytesRead === chunk.length ? READ_CHUNK_BYTES : END_PROBE_BYTES;
  }
  const bytes = Buffer.allocUnsafeSlow(total);
  let at = 0;
  for (const chunk of chunks) at += chunk.copy(bytes, at);
  return bytes;
}

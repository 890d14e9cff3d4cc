// Files inside a folder the user gave us (memory/, documents/), read and written without ever following a symbolic
// link planted inside it: its subfolders must be real folders, and its files are opened with O_NOFOLLOW.
import { randomBytes } from 'node:crypto';
import { closeSync, constants, fstatSync, lstatSync, openSync, writeFileSync } from 'node:fs';
import { lstat, mkdir, open, rename, unlink } from 'node:fs/promises';
import { dirname, isAbsolute, relative } from 'node:path';
import { CortexError } from './errors.js';

/** A path inside the user's folder that leads elsewhere (a symbolic link) or is not what it should be. */
export class UnsafePathError extends CortexError {
  constructor(
    readonly path: string,
    reason: string,
  ) {
    super('unsafe_path', `${path} ${reason}, so it was not used`);
  }
}

/**
 * Makes sure `dir` and its `depth - 1` nearest parents are real folders, not symbolic links (the folder above them,
 * the one the user configured, may be a link: that was their choice), creating the missing ones.
 * @throws UnsafePathError when one is a link or not a folder.
 */
export async function ensureRealFolders(dir: string, depth: number): Promise<void> {
  const chain: string[] = [];
  for (let d = dir, i = 0; i < depth; i++, d = dirname(d)) chain.unshift(d);
  for (const [i, folder] of chain.entries()) {
    // Synchronous on purpose: every line of a trace and every save of a session checks these folders (17 times a
    // question), and an lstat of a folder just used is a few microseconds, a fifth of the promise version's cost.
    const info = lstatSync(folder, { throwIfNoEntry: false });
    if (info === undefined) {
      // The configured folder above the chain is made only when the chain is missing from its top: every write
      // checks the chain, and most find it there already.
      if (i === 0) await mkdir(dirname(folder), { recursive: true });
      await mkdir(folder).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'EEXIST') throw err;
      });
      // Created by someone else meanwhile: check what it is.
      const made = await lstat(folder);
      if (!made.isDirectory()) throw new UnsafePathError(folder, 'is not a folder');
      continue;
    }
    if (info.isSymbolicLink()) throw new UnsafePathError(folder, 'is a symbolic link');
    if (!info.isDirectory()) throw new UnsafePathError(folder, 'is not a folder');
  }
}

/** True when `dir` and its `depth - 1` nearest parents exist and are real folders (no links). Never throws. */
export async function areRealFolders(dir: string, depth: number): Promise<boolean> {
  for (let d = dir, i = 0; i < depth; i++, d = dirname(d)) {
    const info = await lstat(d).catch(() => null);
    if (!info || info.isSymbolicLink() || !info.isDirectory()) return false;
  }
  return true;
}

const linkRefusal = (path: string, err: NodeJS.ErrnoException) =>
  err.code === 'ELOOP' ? new UnsafePathError(path, 'is a symbolic link') : err;

/** Reads a regular file as UTF-8, refusing a symbolic link or anything not a regular file. @throws UnsafePathError; fs errors. */
export async function readRegularFile(path: string): Promise<string> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW).catch((err: NodeJS.ErrnoException) => {
    throw linkRefusal(path, err);
  });
  try {
    if (!(await handle.stat()).isFile()) throw new UnsafePathError(path, 'is not a regular file');
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}

/**
 * Appends `text` to a regular file (created 0600), never through a symbolic link. Synchronous, for a trace's many
 * short lines: a few microseconds against the several hundred that four awaited steps cost. O_NONBLOCK makes a FIFO
 * planted at `path` fail or show itself at once instead of holding the process until someone reads it.
 * @throws UnsafePathError; fs errors.
 */
export function appendRegularFileSync(path: string, text: string): void {
  const flags = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK;
  let fd: number;
  try {
    fd = openSync(path, flags, 0o600);
  } catch (err) {
    throw linkRefusal(path, err as NodeJS.ErrnoException);
  }
  try {
    if (!fstatSync(fd).isFile()) throw new UnsafePathError(path, 'is not a regular file');
    writeFileSync(fd, text, 'utf8');
  } finally {
    closeSync(fd);
  }
}

/**
 * Replaces `path` with `data` (text as UTF-8) atomically: a new temp file beside it (created exclusively, so never through a link),
 * then a rename, which replaces a link at `path` rather than writing through it.
 */
export function replaceFile(path: string, data: string | Uint8Array): Promise<void> {
  return replaceThroughTemp(path, async (temp) => {
    const handle = await open(temp, 'wx', 0o600);
    try {
      await handle.writeFile(data);
    } finally {
      await handle.close();
    }
  });
}

/**
 * replaceFile() for a small file written many times a question (a session's memory): the temp file is made and
 * written with synchronous calls (tens of microseconds, against hundreds through the promise version's thread-pool
 * hops); the rename, which may wait for the disk (ext4 flushes a file renamed over another), still goes through the
 * thread pool. @throws fs errors.
 */
export function replaceSmallFile(path: string, data: string | Uint8Array): Promise<void> {
  return replaceThroughTemp(path, (temp) => {
    const fd = openSync(temp, 'wx', 0o600);
    try {
      writeFileSync(fd, data);
    } finally {
      closeSync(fd);
    }
  });
}

/** Writes a new temp file beside `path` with `write`, renames it over `path`, and removes it if anything failed. */
async function replaceThroughTemp(path: string, write: (temp: string) => Promise<void> | void): Promise<void> {
  const temp = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    await write(temp);
    await rename(temp, path);
  } catch (err) {
    await unlink(temp).catch(() => undefined);
    throw err;
  }
}

/** True when `path` is `folder` or inside it (both absolute and already resolved). */
export function isInside(folder: string, path: string): boolean {
  const rel = relative(folder, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

// SHA-256 of a document file, read safely: no symlinks followed, nothing but a regular file, a size cap.
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { createHash } from 'node:crypto';

/** Bytes read per chunk while hashing. */
const HASH_READ_CHUNK_BYTES = 1 << 20;

export type HashResult = { ok: true; hash: string; size: number } | { ok: false; reason: string };

/**
 * Hashes `path` if it is a regular file of at most `maxBytes`. Opened with O_NOFOLLOW (a symlink swapped in after
 * the scan is refused) and O_NONBLOCK (a FIFO swapped in cannot hang us), then checked with fstat.
 */
export async function hashFile(path: string, maxBytes: number): Promise<HashResult> {
  let handle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return { ok: false, reason: code === 'ELOOP' ? 'symbolic link, not followed' : `unreadable (${code ?? String(err)})` };
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) return { ok: false, reason: 'not a regular file' };
    if (info.size > maxBytes) return { ok: false, reason: `too_large: ${info.size} bytes, the limit is ${maxBytes}` };
    const hash = createHash('sha256');
    const buffer = Buffer.allocUnsafe(HASH_READ_CHUNK_BYTES);
    let total = 0;
    // Bounded by maxBytes: the loop stops at end of file or once past the cap (a file growing while we read).
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
      if (bytesRead === 0) break;
      total += bytesRead;
      if (total > maxBytes) return { ok: false, reason: `too_large: more than ${maxBytes} bytes` };
      hash.update(buffer.subarray(0, bytesRead));
    }
    return { ok: true, hash: hash.digest('hex'), size: total };
  } catch (err) {
    return { ok: false, reason: `unreadable (${(err as NodeJS.ErrnoException).code ?? String(err)})` };
  } finally {
    await handle.close();
  }
}

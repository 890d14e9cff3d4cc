// Atomic file replacement: write a temp file beside the target, flush it, rename it over the target.
import { randomBytes } from 'node:crypto';
import { open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** Marker in our temp files' names, so the documents scan and a cleanup can recognise them. */
export const TEMP_FILE_MARKER = '.cortex-tmp-';

/** True for a file name made by {@link writeFileAtomic} (left behind only if the process died mid-write). */
export function isOurTempFile(name: string): boolean {
  return name.includes(TEMP_FILE_MARKER);
}

/**
 * Replaces `path` with `data` so readers see either the old or the new file, never a mix: the data goes to
 * `<path>.cortex-tmp-<pid>-<random>` in the same folder, is fsynced, then renamed over `path`. The temp file is
 * removed if anything fails.
 */
export async function writeFileAtomic(path: string, data: string | Uint8Array): Promise<void> {
  const temp = join(dirname(path), `${basename(path)}${TEMP_FILE_MARKER}${process.pid}-${randomBytes(4).toString('hex')}`);
  try {
    const handle = await open(temp, 'wx', 0o644);
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, path);
  } catch (err) {
    await rm(temp, { force: true });
    throw err;
  }
}

// Removes the temp files an interrupted index save (kill -9 between write and rename) left in the index folder.
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { isOurTempFile } from '../../atomic-write.js';

/**
 * Deletes every file of ours named as a temp file (see writeFileAtomic) directly in `indexDir` and returns their
 * names. Call it holding the index lock: only the lock holder writes there, so any temp file found is left over from
 * a process that died mid-save. A missing folder is nothing to clean; a file that cannot be removed is skipped.
 */
export async function removeStaleTempFiles(indexDir: string): Promise<string[]> {
  let entries;
  try {
    entries = await readdir(indexDir, { withFileTypes: true });
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const entry of entries) {
    if (!entry.isFile() || !isOurTempFile(entry.name)) continue;
    try {
      await rm(join(indexDir, entry.name), { force: true });
      removed.push(entry.name);
    } catch {
      // Left for the next start; a leftover costs disk space, not correctness.
    }
  }
  return removed;
}

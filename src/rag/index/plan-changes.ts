// Decides what an indexing run must do: which files are unchanged, new, changed or gone, from stat data and content hashes.
import type { DocEntry } from './index-files.js';
import { canHoldImages } from '../extract/formats.js';
import { hashFile } from './hash-file.js';
import type { ScannedFile } from './scan-documents.js';

/**
 * A file modified this close to (or after) the time its entry was written may have changed without its size or
 * mtime changing (mtime granularity, as in git's "racy" index): such files are hashed again.
 */
export const RACY_MTIME_WINDOW_MS = 2_000;

/** Files hashed at once. */
const HASH_CONCURRENCY = 8;

/** A file to extract, chunk and embed. */
export interface PlannedFile extends ScannedFile {
  /** SHA-256 from planning; '' for a new file, which is hashed as it is read for extraction. */
  hash: string;
  /** True when the file had an entry (its old chunks go). */
  previouslyIndexed: boolean;
}

export interface ChangePlan {
  toIndex: PlannedFile[];
  /** Entries of files no longer in the folder. */
  removed: string[];
  /** Unchanged files, with their (possibly refreshed) entries. */
  unchanged: Record<string, DocEntry>;
  /** Files that could not be hashed (too large, unreadable), with new failed entries. */
  unreadable: Array<{ file: ScannedFile; reason: string }>;
  /** True when an unchanged file's entry got a new size/mtime (the cache file needs writing). */
  entriesRefreshed: boolean;
  /** Files in `toIndex` only because another image reader is set up now. */
  rereadForImages: number;
}

/**
 * Compares the scan with the previous entries; hashes only known files whose size or mtime changed (or are racy).
 * With an image reader (`imageReader`, a captioner id), a file that can hold images and was extracted without it is
 * read again, so setting up a vision model reads the charts and scans already in the folder. Losing the reader
 * (a model that is down) reads nothing again: the captions already indexed stay.
 */
export async function planChanges(
  scanned: readonly ScannedFile[],
  previous: Readonly<Record<string, DocEntry>>,
  maxFileBytes: number,
  imageReader?: string,
): Promise<ChangePlan> {
  const plan: ChangePlan = { toIndex: [], removed: [], unchanged: {}, unreadable: [], entriesRefreshed: false, rereadForImages: 0 };
  const present = new Set<string>();
  const toHash: ScannedFile[] = [];
  for (const file of scanned) {
    present.add(file.rel);
    const entry = previous[file.rel];
    const statSame = entry !== undefined && entry.size === file.size && entry.mtime_ms === file.mtimeMs;
    if (imageReader && entry?.hash && entry.image_reader !== imageReader && canHoldImages(file.rel)) {
      plan.toIndex.push({ ...file, hash: '', previouslyIndexed: true });
      plan.rereadForImages++;
      continue;
    }
    if (statSame && file.mtimeMs < entry.indexed_at_ms - RACY_MTIME_WINDOW_MS) {
      plan.unchanged[file.rel] = entry;
      continue;
    }
    if (entry && !entry.hash && statSame) {
      // A file too large to hash last time, still the same size and mtime: still too large.
      plan.unchanged[file.rel] = entry;
      continue;
    }
    // A new file needs no hash to be planned: the extractor hashes the bytes it reads, so its file is read once.
    if (!entry) plan.toIndex.push({ ...file, hash: '', previouslyIndexed: false });
    else toHash.push(file);
  }
  // Hashed a few at a time: each file costs several thread-pool round trips (open, stat, read, close), which overlap.
  for (let start = 0; start < toHash.length; start += HASH_CONCURRENCY) {
    const batch = toHash.slice(start, start + HASH_CONCURRENCY);
    const hashes = await Promise.all(batch.map((file) => hashFile(file.abs, maxFileBytes)));
    batch.forEach((file, i) => {
      const hashed = hashes[i]!;
      const entry = previous[file.rel];
      if (!hashed.ok) {
        plan.unreadable.push({ file, reason: hashed.reason });
      } else if (entry && entry.hash === hashed.hash) {
        plan.unchanged[file.rel] = { ...entry, size: file.size, mtime_ms: file.mtimeMs, indexed_at_ms: Date.now() };
        plan.entriesRefreshed = true;
      } else {
        plan.toIndex.push({ ...file, hash: hashed.hash, previouslyIndexed: entry !== undefined });
      }
    });
  }
  for (const rel of Object.keys(previous)) if (!present.has(rel)) plan.removed.push(rel);
  return plan;
}

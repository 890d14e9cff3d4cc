// Lists the documents folder: regular files only, recursively, without hidden files, temp files or the index itself.
import { opendir, lstat } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import { isOurTempFile } from './atomic-write.js';

/** Folder depth scanned below the documents folder; deeper trees are almost surely a mistake (or a loop via bind mounts). */
export const MAX_SCAN_DEPTH = 32;
/** Entries examined in one scan; past this the rest is ignored with a warning instead of walking a huge tree forever. */
export const MAX_SCAN_ENTRIES = 200_000;
/** lstat calls in flight at once: enough to keep libuv's thread pool busy, few enough not to starve other I/O. */
const STAT_CONCURRENCY = 16;

/** A regular file found by the scan. */
export interface ScannedFile {
  /** Path relative to the documents folder, with / separators: the document's name in the index. */
  rel: string;
  abs: string;
  size: number;
  mtimeMs: number;
}

/** What the scan found: files to consider, entries it refused (symlinks, pipes...) and warnings. */
export interface ScanResult {
  files: ScannedFile[];
  refused: Array<{ file: string; reason: string }>;
  warnings: string[];
}

/** Names never indexed: hidden files, our temp files, editor and download leftovers. */
export function isIgnoredName(name: string): boolean {
  return (
    name.startsWith('.') ||
    isOurTempFile(name) ||
    name.startsWith('~$') || // Office lock files
    name.endsWith('~') || // editor backups
    /\.(swp|swo|tmp|part|crdownload|download)$/iu.test(name)
  );
}

/**
 * Scans `documentsDir` recursively in a stable (sorted) order. Symbolic links are not followed and are refused,
 * like FIFOs, sockets and devices, so nothing outside the folder is read and nothing can block. Folders in
 * `exclude` (e.g. an index folder placed inside the documents folder) are skipped.
 * @throws the fs error when `documentsDir` itself cannot be read (ENOENT, ENOTDIR, EACCES).
 */
export async function scanDocuments(documentsDir: string, { exclude = [] }: { exclude?: string[] } = {}): Promise<ScanResult> {
  const root = resolve(documentsDir);
  const excluded = new Set(exclude.map((dir) => resolve(dir)));
  const result: ScanResult = { files: [], refused: [], warnings: [] };
  let entries = 0;
  const walk = async (dir: string, depth: number): Promise<void> => {
    const handle = await opendir(dir);
    const names: Array<{ name: string; kind: 'dir' | 'file' | 'link' | 'other' }> = [];
    for await (const entry of handle) {
      if (++entries > MAX_SCAN_ENTRIES) break;
      if (isIgnoredName(entry.name)) continue;
      const kind = entry.isDirectory() ? 'dir' : entry.isFile() ? 'file' : entry.isSymbolicLink() ? 'link' : 'other';
      names.push({ name: entry.name, kind });
    }
    names.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const files: Array<{ abs: string; rel: string }> = [];
    for (const { name, kind } of names) {
      const abs = join(dir, name);
      const rel = relative(root, abs).split(sep).join('/');
      if (kind === 'dir') {
        if (excluded.has(abs)) continue;
        if (depth >= MAX_SCAN_DEPTH) result.warnings.push(`${rel}: deeper than ${MAX_SCAN_DEPTH} folders, not scanned`);
        else await walk(abs, depth + 1).catch((err: NodeJS.ErrnoException) => result.refused.push({ file: rel, reason: `folder unreadable (${err.code ?? err.message})` }));
      } else if (kind === 'link') {
        result.refused.push({ file: rel, reason: 'symbolic link, not followed' });
      } else if (kind === 'other') {
        result.refused.push({ file: rel, reason: 'not a regular file' });
      } else {
        files.push({ abs, rel });
      }
    }
    for (let start = 0; start < files.length; start += STAT_CONCURRENCY) {
      const batch = files.slice(start, start + STAT_CONCURRENCY);
      // A file deleted between listing and stat is simply not there (null).
      const infos = await Promise.all(batch.map(({ abs }) => lstat(abs).catch(() => null)));
      infos.forEach((info, i) => {
        if (info?.isFile()) result.files.push({ ...batch[i]!, size: info.size, mtimeMs: info.mtimeMs });
      });
    }
  };
  await walk(root, 0);
  if (entries > MAX_SCAN_ENTRIES) result.warnings.push(`more than ${MAX_SCAN_ENTRIES} entries in ${root}; the rest were not scanned`);
  return result;
}

// The documents folder as a searchable library: a watcher and folder mtimes say when to re-index, so a search costs a search.
import { type FSWatcher, statSync, watch } from 'node:fs';
import { opendir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { errorMessage } from '../errors.js';
import type { LlmClient } from '../llm/types.js';
import type { ChunkingMode } from './chunk/chunk-document.js';
import type { Embedder } from './embed/embedder.js';
import { IndexLockedError } from './errors.js';
import { indexDocuments, type IndexSummary } from './index/index-documents.js';
import { METADATA_FILE } from './index/index-files.js';
import { isIgnoredName, MAX_SCAN_DEPTH } from './index/scan-documents.js';
import { formatSearchResults } from './search/format-results.js';
import { bm25Search, retrieve, type RetrieverName, type SearchHit } from './search/retrievers.js';
import { loadSearchIndex, type SearchIndex } from './search/search-index.js';
import { DEFAULT_SEARCH_K, MAX_SEARCH_K } from './search/search-k.js';
import type { Extractor } from './types.js';

/** Folders watched at most (one inotify watch each); a larger tree is checked on every search instead. */
export const MAX_WATCHED_FOLDERS = 4_096;

export interface DocumentLibraryOptions {
  documentsDir: string;
  indexDir: string;
  embedder: Embedder;
  extractor: Extractor;
  chunking?: ChunkingMode;
  llm?: LlmClient;
  /** One line per event worth telling a human (index summaries, warnings). Default: nothing. */
  log?: (line: string) => void;
  /** Weight of the vector ranking in the fused search (profile `rag.vector_weight`); default: the embedder's own. */
  vectorWeight?: number;
  /** Watch the folder for changes (default true); without a watcher every search re-checks the folder. */
  watch?: boolean;
}

/** What a search returns: the text for the model, the hits, and notes about the index (stale, failed files). */
export interface LibrarySearchResult {
  text: string;
  hits: SearchHit[];
  notes: string[];
}

export interface DocumentLibrary {
  /** Brings the index up to date (incremental; cheap when nothing changed). Never throws: problems come back as notes. */
  refresh(): Promise<{ summary: IndexSummary | null; notes: string[] }>;
  /**
   * Searches; refreshes first only when the folder may have changed (a watcher event, a folder's mtime, a failed
   * last refresh) and reloads when another process wrote the index. `k` is clamped to 1..20.
   */
  search(options: { query: string; k?: number; retriever?: RetrieverName }): Promise<LibrarySearchResult>;
  /** Stops watching the folder. */
  close(): void;
}

/** Identity of a file or folder on disk (inode, size, mtime); 'none' when it is missing. */
function stampOf(path: string): string {
  try {
    const info = statSync(path);
    return `${info.ino}:${info.size}:${info.mtimeMs}`;
  } catch {
    return 'none';
  }
}

/** Folders below `root` (itself included) that the indexer scans, up to the scan's depth; `exclude` is skipped. */
async function foldersOf(root: string, exclude: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string, depth: number): Promise<void> => {
    out.push(dir);
    if (depth >= MAX_SCAN_DEPTH) return;
    try {
      for await (const entry of await opendir(dir)) {
        const path = join(dir, entry.name);
        if (entry.isDirectory() && !isIgnoredName(entry.name) && path !== exclude) await walk(path, depth + 1);
      }
    } catch {
      // An unreadable folder is still stamped: its mtime changes when it becomes readable or goes away.
    }
  };
  await walk(root, 0);
  return out;
}

/** Creates the library; nothing is read until the first refresh or search. */
export function createDocumentLibrary({
  documentsDir,
  indexDir,
  embedder,
  extractor,
  chunking,
  llm,
  log = () => {},
  vectorWeight,
  watch: watchOption = true,
}: DocumentLibraryOptions): DocumentLibrary {
  let watching = watchOption;
  let loaded: SearchIndex | null = null;
  let loadedStamp = '';
  // Runs refreshes one after another: the index lock keeps other processes out, this chain keeps our own calls apart.
  let chain: Promise<unknown> = Promise.resolve();
  // True until a refresh succeeds, and again after any watcher event or failed refresh.
  let dirty = true;
  const watchers = new Map<string, FSWatcher>();
  /** Folder → mtime stamp at the last refresh: a file added, removed or renamed changes its folder's mtime. */
  let folderStamps = new Map<string, string>();
  const root = resolve(documentsDir);
  const indexPath = resolve(indexDir);

  /**
   * One non-recursive watcher per folder (inotify reports changes to the entries of a watched folder): far cheaper
   * than Node 20's recursive watch on Linux, which opens a watcher on every file. New folders are watched after the
   * refresh their creation triggers (their parent's mtime changes).
   */
  const watchFolders = (folders: readonly string[]) => {
    if (!watching) return;
    const wanted = new Set(folders);
    for (const [folder, watcher] of watchers) {
      if (!wanted.has(folder)) {
        watcher.close();
        watchers.delete(folder);
      }
    }
    for (const folder of folders) {
      if (watchers.has(folder) || watchers.size >= MAX_WATCHED_FOLDERS) continue;
      try {
        const watcher = watch(folder, (_event, name) => {
          const entry = name?.toString();
          if (entry && (isIgnoredName(entry) || join(folder, entry) === indexPath)) return;
          dirty = true;
        });
        watcher.unref();
        watcher.on('error', () => {
          // The folder went away or the system ran out of watches: the next search refreshes and re-watches.
          watcher.close();
          watchers.delete(folder);
          dirty = true;
        });
        watchers.set(folder, watcher);
      } catch {
        // Not watchable (e.g. no inotify watches left): every search checks the folder instead.
        dirty = true;
      }
    }
  };
  const watchingAll = () => watching && watchers.size > 0 && watchers.size === folderStamps.size;

  const foldersChanged = () => {
    for (const [folder, stamp] of folderStamps) if (stampOf(folder) !== stamp) return true;
    return false;
  };

  /**
   * (Re)loads the index when none is loaded yet or metadata.json changed (a refresh, or another process such as
   * `cortex index`, wrote a new one). False when loading failed (the error is in `notes`).
   */
  const reloadIfRewritten = async (notes: string[]): Promise<boolean> => {
    // loadedStamp is '' until an index is loaded, and stampOf never returns ''.
    const stamp = stampOf(join(indexDir, METADATA_FILE));
    if (stamp === loadedStamp) return true;
    try {
      loaded = await loadSearchIndex(indexDir);
      loadedStamp = stamp;
      return true;
    } catch (err) {
      notes.push(errorMessage(err));
      return false;
    }
  };

  const doRefresh = async (): Promise<{ summary: IndexSummary | null; notes: string[] }> => {
    const notes: string[] = [];
    let summary: IndexSummary | null = null;
    // Cleared before indexing: a change made while indexing sets it again, and the next search picks it up.
    dirty = false;
    // Stamped before the scan for the same reason.
    const folders = await foldersOf(root, indexPath);
    folderStamps = new Map(folders.map((folder) => [folder, stampOf(folder)]));
    watchFolders(folders);
    try {
      summary = await indexDocuments({ documentsDir, indexDir, embedder, extractor, chunking, llm, ...(vectorWeight === undefined ? {} : { vectorWeight }) });
      if (summary.changed || summary.messages.length > 0 || summary.failed.length > 0) {
        log(
          `indexed ${documentsDir}: ${summary.added} added, ${summary.updated} updated, ${summary.removed} removed, ${summary.skipped} unchanged, ` +
            `${summary.failed.length} failed; ${summary.chunks} chunks (${summary.ms} ms)`,
        );
        for (const message of summary.messages) log(`  ${message}`);
        for (const { file, reason } of summary.failed) log(`  skipped ${file}: ${reason}`);
      }
    } catch (err) {
      const note =
        err instanceof IndexLockedError
          ? 'another process is updating the index; these results may be out of date'
          : `the index could not be updated (${errorMessage(err)}); these results may be out of date`;
      notes.push(note);
      log(note);
      dirty = true;
    }
    // The indexer rebuilds an unusable index: the next search runs it again.
    if (!(await reloadIfRewritten(notes))) dirty = true;
    return { summary, notes };
  };

  const refresh = () => {
    const run = chain.then(doRefresh, doRefresh);
    chain = run;
    return run;
  };

  return {
    refresh,
    close: () => {
      for (const watcher of watchers.values()) watcher.close();
      watchers.clear();
      watching = false;
    },
    async search({ query, k = DEFAULT_SEARCH_K, retriever = 'hybrid' }) {
      let notes: string[] = [];
      // A refresh under way (e.g. indexing at start) finishes first: its index is the one to search.
      await chain.catch(() => {});
      if (dirty || !watchingAll() || foldersChanged()) notes = (await refresh()).notes;
      else await reloadIfRewritten(notes);
      const index = loaded;
      const size = Math.max(1, Math.min(MAX_SEARCH_K, Math.floor(k)));
      if (!index || index.chunks.length === 0) {
        return { text: `No documents are indexed yet: put files into ${documentsDir} and search again.`, hits: [], notes };
      }
      let hits: SearchHit[];
      try {
        hits = await retrieve(retriever, index, embedder, query, size, vectorWeight);
      } catch (err) {
        if (retriever !== 'hybrid') throw err;
        // The embedding model went away (or disagrees with the index): keyword search still answers.
        hits = bm25Search(index, query, size);
        notes.push(`vector search failed (${errorMessage(err)}); these are keyword (BM25) results only`);
      }
      return { text: formatSearchResults(query, hits, { chunks: index.chunks.length, documents: index.documents }), hits, notes };
    },
  };
}

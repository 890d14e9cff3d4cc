// The documents folder as a searchable library: one indexer at a time in this process, refresh before search, reload on change.
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { errorMessage } from '../errors.js';
import type { LlmClient } from '../llm/types.js';
import type { ChunkingMode } from './chunk/chunk-document.js';
import type { Embedder } from './embed/embedder.js';
import { IndexLockedError } from './errors.js';
import { indexDocuments, type IndexSummary } from './index/index-documents.js';
import { METADATA_FILE } from './index/index-files.js';
import { formatSearchResults } from './search/format-results.js';
import { bm25Search, retrieve, type RetrieverName, type SearchHit } from './search/retrievers.js';
import { loadSearchIndex, type SearchIndex } from './search/search-index.js';
import type { Extractor } from './types.js';

/** Most results one search returns. */
export const MAX_SEARCH_K = 20;
/** Results when the caller does not say. */
export const DEFAULT_SEARCH_K = 5;

export interface DocumentLibraryOptions {
  documentsDir: string;
  indexDir: string;
  embedder: Embedder;
  extractor: Extractor;
  chunking?: ChunkingMode;
  llm?: LlmClient;
  /** One line per event worth telling a human (index summaries, warnings). Default: nothing. */
  log?: (line: string) => void;
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
  /** Refreshes, then searches. `k` is clamped to 1..20. */
  search(options: { query: string; k?: number; retriever?: RetrieverName }): Promise<LibrarySearchResult>;
}

/** Identity of metadata.json on disk: when it changes, another process wrote a new index. */
async function metadataStamp(indexDir: string): Promise<string> {
  try {
    const info = await stat(join(indexDir, METADATA_FILE));
    return `${info.ino}:${info.size}:${info.mtimeMs}`;
  } catch {
    return 'none';
  }
}

/** Creates the library; nothing is read until the first refresh or search. */
export function createDocumentLibrary({ documentsDir, indexDir, embedder, extractor, chunking, llm, log = () => {} }: DocumentLibraryOptions): DocumentLibrary {
  let loaded: SearchIndex | null = null;
  let loadedStamp = '';
  // Runs refreshes one after another: the index lock keeps other processes out, this chain keeps our own calls apart.
  let chain: Promise<unknown> = Promise.resolve();

  const doRefresh = async (): Promise<{ summary: IndexSummary | null; notes: string[] }> => {
    const notes: string[] = [];
    let summary: IndexSummary | null = null;
    try {
      summary = await indexDocuments({ documentsDir, indexDir, embedder, extractor, chunking, llm });
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
    }
    const stamp = await metadataStamp(indexDir);
    if (!loaded || stamp !== loadedStamp) {
      try {
        loaded = await loadSearchIndex(indexDir);
        loadedStamp = stamp;
      } catch (err) {
        notes.push(errorMessage(err));
      }
    }
    return { summary, notes };
  };

  const refresh = () => {
    const run = chain.then(doRefresh, doRefresh);
    chain = run;
    return run;
  };

  return {
    refresh,
    async search({ query, k = DEFAULT_SEARCH_K, retriever = 'hybrid' }) {
      const { notes } = await refresh();
      const index = loaded;
      const size = Math.max(1, Math.min(MAX_SEARCH_K, Math.floor(k)));
      if (!index || index.chunks.length === 0) {
        return { text: `No documents are indexed yet: put files into ${documentsDir} and search again.`, hits: [], notes };
      }
      let hits: SearchHit[];
      try {
        hits = await retrieve(retriever, index, embedder, query, size);
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

// What reads the documents folder (extractor, image reader, embedder, index), loaded and opened on first use, not at start.
import type { DocumentLibrary } from '../../src/rag/document-library.js';
import type { IndexerSettings } from '../../src/rag/indexer-settings.js';
import type { ExtractionResult, Extractor } from '../../src/rag/types.js';
import { errorMessage } from '../../src/errors.js';
import { createLazyLibrary } from './lazy-library.js';

/** An extractor that also fetches and extracts web pages (the documents folder's own, under the profile's network policy). */
export interface PageExtractor extends Extractor {
  extractUrl(url: string): Promise<ExtractionResult>;
}

/** The server's readers, each opened when a tool (or indexing) first needs it. */
export interface ReadingStack {
  extractor: PageExtractor;
  library: DocumentLibrary;
}

/**
 * The documents server's extractor and library. Nothing is loaded here: the LLM clients, the embedder and the image
 * reader (a vision model, or Tesseract found on PATH) are imported and opened on the first extraction, fetch or search,
 * so tools/list is answered without them. An image reader that cannot start is logged and images are left out, as at
 * start before; a library whose embedder cannot start is retried on the next search (createLazyLibrary).
 */
export function openReadingStack(indexer: IndexerSettings, log: (line: string) => void): ReadingStack {
  let opened: Promise<PageExtractor> | null = null;
  const openExtractor = (): Promise<PageExtractor> =>
    (opened ??= (async () => {
      const { createIndexerExtractor, openCaptioner } = await import('../../src/rag/index-folder.js');
      let captioner;
      try {
        captioner = await openCaptioner(indexer);
      } catch (err) {
        log(`images will not be read: ${errorMessage(err)}`);
      }
      log(`images ${captioner?.id ?? 'not read (no vision model, no Tesseract)'}`);
      // .url files and convert_webpage_url_into_markdown go through the same fetch, under the profile's network policy.
      return createIndexerExtractor({ ...indexer, captioner });
    })());

  const extractor: PageExtractor = {
    extract: async (path, limits) => (await openExtractor()).extract(path, limits),
    extractUrl: async (url) => (await openExtractor()).extractUrl(url),
    close: async () => {
      if (opened) await (await opened).close();
    },
  };
  const { documentsDir, indexDir, chunking, vectorWeight } = indexer;
  const library = createLazyLibrary(async () => {
    const [{ chunkingLlm }, { openEmbedder }, { createDocumentLibrary }] = await Promise.all([
      import('../../src/rag/index-folder.js'),
      import('../../src/rag/embed/open-embedder.js'),
      import('../../src/rag/document-library.js'),
    ]);
    return createDocumentLibrary({
      documentsDir,
      indexDir,
      embedder: await openEmbedder(indexer.embedding, indexer.env),
      extractor: await openExtractor(),
      chunking,
      ...(vectorWeight === undefined ? {} : { vectorWeight }),
      ...chunkingLlm(indexer),
      log,
    });
  });
  return { extractor, library };
}

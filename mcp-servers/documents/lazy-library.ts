// A DocumentLibrary created on first use, so the server answers tools/list even while (or if) the embedder cannot start.
import type { DocumentLibrary } from '../../src/rag/document-library.js';

/**
 * Wraps `create` (which may fail, e.g. an embedding model that is not reachable yet): the first call creates the
 * library, later calls reuse it; a failed creation is retried on the next call and its error reaches the caller.
 */
export function createLazyLibrary(create: () => Promise<DocumentLibrary>): DocumentLibrary {
  let pending: Promise<DocumentLibrary> | null = null;
  let created: DocumentLibrary | null = null;
  const get = (): Promise<DocumentLibrary> => {
    pending ??= create().then(
      (library) => (created = library),
      (err: unknown) => {
        pending = null;
        throw err;
      },
    );
    return pending;
  };
  return {
    refresh: async () => (await get()).refresh(),
    search: async (options) => (await get()).search(options),
    close: () => created?.close(),
  };
}

// Typed errors of the indexing and search pipeline (extraction never throws for a bad file; it returns a reason).
import { CortexError } from '../errors.js';

/** Another indexer holds the index lock; `holder` describes it (pid, host, since when). */
export class IndexLockedError extends CortexError {
  constructor(
    readonly lockPath: string,
    readonly holder: string,
    options?: { cause?: unknown },
  ) {
    super('index_locked', `the index is being updated by another process (${holder}); try again when it finishes, or delete ${lockPath} if that process is gone`, options);
  }
}

/** An embedder returned something unusable: the wrong number of vectors, or vectors of the wrong length. */
export class EmbeddingError extends CortexError {
  constructor(
    readonly embedderId: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super('embedding', `embedder ${embedderId}: ${message}`, options);
  }
}

/** The documents folder is missing or unreadable (the indexer never creates it: a typo must not empty the index). */
export class DocumentsFolderError extends CortexError {
  constructor(
    readonly documentsDir: string,
    reason: string,
    options?: { cause?: unknown },
  ) {
    super('documents_folder', `cannot read the documents folder ${documentsDir}: ${reason}`, options);
  }
}

// GET and POST /v1/documents: list the documents folder; upload one file into it and index it at once.
import { link, rename, rm } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { basename, join } from 'node:path';
import type { LoadedConfig } from '../config/load-config.js';
import { indexFailures } from './passages.js';
import { createIndexerExtractor, indexFolder, openIndexer, type OpenIndexer } from '../rag/index-folder.js';
import { IndexerSettings } from '../rag/indexer-settings.js';
import type { IndexSummary } from '../rag/index/index-documents.js';
import { scanDocuments } from '../rag/index/scan-documents.js';
import { ApiError } from './api-error.js';
import { sendJson } from './http-io.js';
import { checkWriteRequest, queryValue } from './http-input.js';
import { checkUploadName, saveUpload, storedName, tempPathFor } from './upload-document.js';

/** Files listed by GET /v1/documents at most. */
const MAX_LISTED_DOCUMENTS = 1_000;

const nameTaken = (name: string) => new ApiError(409, 'name_taken', `documents/${name} is a folder`);
const isFolderError = (err: NodeJS.ErrnoException) => err.code === 'EISDIR' || err.code === 'ENOTEMPTY' || err.code === 'EEXIST' || err.code === 'EPERM';

/** `text` with the temp file's path and name (which the person never chose) replaced by the upload's own name. */
function namedAsUploaded(text: string, temp: string, name: string): string {
  return text.replaceAll(temp, name).replaceAll(basename(temp), name);
}

/** The documents endpoints of one server: uploads are read, swapped in and indexed one after another. */
export function createDocumentsRoute({ config, maxUploadBytes }: { config: LoadedConfig; maxUploadBytes: number }) {
  const { documents: documentsDir, faissIndex: indexDir } = config.paths;
  let settings: Promise<OpenIndexer> | undefined;
  let chain: Promise<unknown> = Promise.resolve();

  const open = async () => openIndexer(IndexerSettings.fromProfile(config, process.env));
  // The same settings as `cortex index`, made once and kept; a failure (a model not reachable yet) is retried on the next upload.
  const indexSettings = (): Promise<OpenIndexer> =>
    (settings ??= open().catch((err: unknown) => {
      settings = undefined;
      throw err;
    }));

  const index = async (name: string): Promise<{ summary: IndexSummary; chunks: number; failure?: string }> => {
    let chunks = 0;
    const summary = await indexFolder({
      ...(await indexSettings()),
      onProgress: (event) => {
        if (event.phase === 'file' && event.file === name) chunks = event.chunks;
      },
    });
    return { summary, chunks, failure: summary.failed.find((f) => f.file === name)?.reason };
  };

  /** Reads `temp` (the upload of `name`) as the indexer would; the reason it cannot be read, or null. */
  const unreadable = async (temp: string, name: string): Promise<string | null> => {
    const extractor = createIndexerExtractor(await indexSettings());
    try {
      const read = await extractor.extract(temp);
      return read.ok ? null : namedAsUploaded(`${read.reason}: ${read.message}`, temp, name);
    } finally {
      await extractor.close();
    }
  };

  /**
   * Puts the uploaded `temp` in place of documents/<name> and indexes it. The upload is read first: a file the
   * indexer cannot read changes nothing. Should indexing still fail, the previous file (kept as a hard link until
   * then) goes back and the folder is indexed again, so the index matches it as before.
   */
  const replace = async (temp: string, requested: string) => {
    const name = await storedName(documentsDir, requested);
    const problem = await unreadable(temp, name);
    if (problem !== null) throw new ApiError(422, 'unreadable_document', `${name} could not be read, so nothing was changed: ${problem}`);
    const path = join(documentsDir, name);
    const previous = tempPathFor(documentsDir, name, 'previous');
    const hadPrevious = await link(path, previous).then(
      () => true,
      (err: NodeJS.ErrnoException) => {
        if (err.code === 'ENOENT') return false;
        throw isFolderError(err) ? nameTaken(name) : err;
      },
    );
    try {
      await rename(temp, path).catch((err: NodeJS.ErrnoException) => {
        throw isFolderError(err) ? nameTaken(name) : err;
      });
      try {
        const { summary, chunks, failure } = await index(name);
        if (failure !== undefined) throw new ApiError(422, 'unreadable_document', `${name} could not be indexed, so the previous file was kept: ${failure}`);
        return { name, summary, chunks };
      } catch (err) {
        if (hadPrevious) await rename(previous, path);
        else await rm(path, { force: true });
        await index(name).catch(() => undefined);
        throw err;
      }
    } finally {
      await rm(previous, { force: true });
    }
  };

  return {
    /**
     * GET /v1/documents: the files the indexer would read (`failed`: why the last indexing could not read one), and
     * the entries it refuses (symlinks, devices) with their reason.
     */
    async list(res: ServerResponse, headers: Record<string, string>): Promise<void> {
      const scan = await scanDocuments(documentsDir, { exclude: [indexDir] }).catch((err: NodeJS.ErrnoException) => {
        throw new ApiError(500, 'documents_folder', `cannot read the documents folder: ${err.code ?? err.message}`);
      });
      // Files the indexer tried and could not read carry its reason, so the page does not list them like indexed ones.
      const failures = await indexFailures(indexDir);
      const documents = scan.files.slice(0, MAX_LISTED_DOCUMENTS).map((f) => {
        const failed = failures.get(f.rel);
        return { name: f.rel, bytes: f.size, modified: new Date(f.mtimeMs).toISOString(), ...(failed !== undefined ? { failed } : {}) };
      });
      sendJson(res, 200, { documents, refused: scan.refused, total: scan.files.length }, headers);
    },

    /**
     * POST /v1/documents?name=<file>: the raw body replaces documents/<file> (or the file whose name differs only in
     * case or Unicode form) once it has been read, then the folder is indexed. 201 with the stored name and chunk
     * count; 422, with the previous file and its index as they were, when the indexer cannot read it.
     */
    async upload(req: IncomingMessage, res: ServerResponse, headers: Record<string, string>, url: URL): Promise<void> {
      checkWriteRequest(req);
      const requested = checkUploadName(queryValue(url, 'name'));
      const { temp, bytes } = await saveUpload({ req, documentsDir, name: requested, maxBytes: maxUploadBytes });
      try {
        const run = chain.then(() => replace(temp, requested));
        chain = run.catch(() => undefined);
        const { name, summary, chunks } = await run;
        sendJson(res, 201, { name, bytes, chunks, index: { chunks: summary.chunks, ms: summary.ms } }, headers);
      } finally {
        await rm(temp, { force: true });
      }
    },
  };
}

// GET and POST /v1/documents: list the documents folder; upload one file into it and index it at once.
import { rm } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { LoadedConfig } from '../config/load-config.js';
import { indexFailures } from './passages.js';
import { indexFolder, indexOptionsForProfile, type ProfileIndexOptions } from '../rag/index-folder.js';
import type { IndexSummary } from '../rag/index/index-documents.js';
import { scanDocuments } from '../rag/index/scan-documents.js';
import { ApiError } from './api-error.js';
import { sendJson } from './http-io.js';
import { checkUploadName, saveUpload } from './upload-document.js';

/** Files listed by GET /v1/documents at most. */
const MAX_LISTED_DOCUMENTS = 1_000;

/** The documents endpoints of one server: uploads are indexed one after another. */
export function createDocumentsRoute({ config, maxUploadBytes }: { config: LoadedConfig; maxUploadBytes: number }) {
  const { documents: documentsDir, faissIndex: indexDir } = config.paths;
  let settings: Promise<ProfileIndexOptions> | undefined;
  let chain: Promise<unknown> = Promise.resolve();

  const index = async (name: string): Promise<{ summary: IndexSummary; chunks: number; failure?: string }> => {
    // The same settings as `cortex index`, made once and kept; a failure (a model not reachable yet) is retried on the next upload.
    settings ??= indexOptionsForProfile(config).catch((err: unknown) => {
      settings = undefined;
      throw err;
    });
    let chunks = 0;
    const summary = await indexFolder({
      ...(await settings),
      onProgress: (event) => {
        if (event.phase === 'file' && event.file === name) chunks = event.chunks;
      },
    });
    return { summary, chunks, failure: summary.failed.find((f) => f.file === name)?.reason };
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
     * POST /v1/documents?name=<file>: the raw body becomes documents/<file> (replacing one of that name), then the
     * folder is indexed. 201 with the chunk count; 422 (and the file removed) when the indexer cannot read it.
     */
    async upload(req: IncomingMessage, res: ServerResponse, headers: Record<string, string>, url: URL): Promise<void> {
      const name = checkUploadName(url.searchParams.get('name'));
      const saved = await saveUpload({ req, documentsDir, name, maxBytes: maxUploadBytes });
      const run = chain.then(() => index(name));
      chain = run.catch(() => undefined);
      const { summary, chunks, failure } = await run;
      if (failure !== undefined) {
        await rm(saved.path, { force: true });
        throw new ApiError(422, 'unreadable_document', `${name} could not be indexed, so it was not kept: ${failure}`);
      }
      sendJson(res, 201, { name, bytes: saved.bytes, chunks, index: { chunks: summary.chunks, ms: summary.ms } }, headers);
    },
  };
}

// Opens an indexer from its IndexerSettings (embedder, image reader, extractor) and indexes a documents folder with it.
import type { LoadedConfig } from '../config/load-config.js';
import { createLlmClient } from '../llm/select.js';
import type { LlmClient } from '../llm/types.js';
import type { Embedder } from './embed/embedder.js';
import { openEmbedder } from './embed/open-embedder.js';
import { createExtractor, type ImageCaptionSettings, type WorkerExtractor } from './extract/create-extractor.js';
import { indexerExtractorOptions, type IndexerReading } from './extract/extractor-options.js';
import { IndexerSettings } from './indexer-settings.js';
import { indexDocuments, type IndexDocumentsOptions, type IndexSummary } from './index/index-documents.js';
import type { Extractor } from './types.js';
import type { ImageCaptioner } from './vision/image-captioner.js';
import { selectCaptioner } from './vision/select-captioner.js';

/** How long an indexer started by a user (`cortex index`, an upload) waits for another one, e.g. the documents server. */
const INDEX_LOCK_WAIT_MS = 30_000;

export interface IndexFolderOptions extends Omit<IndexDocumentsOptions, 'extractor'> {
  /** Default: the real extractor for `documentsDir` (worker thread, per-file limits), closed at the end. */
  extractor?: Extractor;
  /** How the default extractor reads images (a captioner; its cache goes in `indexDir`); default: images left out. */
  captioner?: ImageCaptionSettings['captioner'] | null;
  /** For the default extractor: fetch `.url` targets on private and loopback addresses too (profiles.yaml security.block_private_network: false). Default false. */
  allowPrivateAddresses?: boolean;
}

/**
 * Indexes `documentsDir` into `indexDir` (incrementally; `rebuild: true` for everything) and returns the summary.
 * Progress arrives through `onProgress` ('file' events carry done/total for a progress bar; 'message' events are
 * warnings and rebuild reasons).
 * @throws IndexLockedError when another indexer (e.g. the documents server) holds the lock past `lockWaitMs`
 * (default 0); DocumentsFolderError when `documentsDir` is missing or unreadable.
 */
export async function indexFolder(options: IndexFolderOptions): Promise<IndexSummary> {
  const extractor =
    options.extractor ??
    createIndexerExtractor({ documentsDir: options.documentsDir, indexDir: options.indexDir, allowPrivateAddresses: options.allowPrivateAddresses ?? false, captioner: options.captioner });
  try {
    return await indexDocuments({ ...options, extractor });
  } finally {
    if (!options.extractor) await extractor.close();
  }
}

/** The extractor every indexer of the documents folder reads with (cortex index, the page's upload, the documents server). */
export function createIndexerExtractor(reading: IndexerReading): WorkerExtractor {
  return createExtractor(indexerExtractorOptions(reading));
}

/** The image reader the settings name: their vision model, else Tesseract when installed, else null. @throws as selectCaptioner. */
export function openCaptioner(settings: IndexerSettings): Promise<ImageCaptioner | null> {
  return selectCaptioner(settings.vision, settings.env);
}

/** The LLM that chunks semantically, when the settings name one. */
export function chunkingLlm(settings: IndexerSettings): { llm: LlmClient } | Record<string, never> {
  return settings.chunkingModel ? { llm: createLlmClient(settings.chunkingModel, settings.env) } : {};
}

/** An opened indexer: {@link indexFolder}'s options, ready to spread, with its embedder and image reader made. */
export type OpenIndexer = Required<Pick<IndexFolderOptions, 'documentsDir' | 'indexDir' | 'embedder' | 'chunking' | 'lockWaitMs' | 'allowPrivateAddresses'>> &
  Pick<IndexFolderOptions, 'vectorWeight' | 'llm'> & {
    captioner: ImageCaptioner | null;
  };

/**
 * Makes the embedder and image reader `settings` name, for every indexer a person starts (`cortex index`, the page's
 * upload): they wait INDEX_LOCK_WAIT_MS for another indexer's lock.
 * @throws ConfigError / LLM errors from the embedder's probe or the image reader.
 */
export async function openIndexer(settings: IndexerSettings): Promise<OpenIndexer> {
  return {
    documentsDir: settings.documentsDir,
    indexDir: settings.indexDir,
    embedder: await openEmbedder(settings.embedding, settings.env),
    captioner: await openCaptioner(settings),
    chunking: settings.chunking,
    ...chunkingLlm(settings),
    ...(settings.vectorWeight === undefined ? {} : { vectorWeight: settings.vectorWeight }),
    lockWaitMs: INDEX_LOCK_WAIT_MS,
    allowPrivateAddresses: settings.allowPrivateAddresses,
  };
}

/**
 * The profile's indexer embedder alone (tool search, eval-retrieval), without the rest of the indexer.
 * @throws as IndexerSettings.fromProfile and {@link openEmbedder}.
 */
export async function profileEmbedder(config: LoadedConfig, env: NodeJS.ProcessEnv = process.env): Promise<Embedder> {
  return openEmbedder(IndexerSettings.fromProfile(config, env).embedding, env);
}

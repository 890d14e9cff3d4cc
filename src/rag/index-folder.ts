// Entry points for the CLI (`cortex index [--rebuild]`): index a documents folder with the real extractor, pick the profile's embedder.
import type { LoadedConfig } from '../config/load-config.js';
import { visionModel, type ModelConfig } from '../config/models.js';
import { ConfigError } from '../errors.js';
import type { Embedder } from './embed/embedder.js';
import { createLexicalEmbedder } from './embed/lexical-embedder.js';
import { createModelEmbedder } from './embed/llm-embedder.js';
import { createExtractor, type ImageCaptionSettings } from './extract/create-extractor.js';
import { indexerExtractorOptions } from './extract/extractor-options.js';
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
  const { captioner } = options;
  const extractor =
    options.extractor ??
    createExtractor(indexerExtractorOptions({ documentsDir: options.documentsDir, indexDir: options.indexDir, allowPrivateAddresses: options.allowPrivateAddresses ?? false, captioner }));
  try {
    return await indexDocuments({ ...options, extractor });
  } finally {
    if (!options.extractor) await extractor.close();
  }
}

/** The settings of {@link indexOptionsForProfile}. */
export type ProfileIndexOptions = Required<Pick<IndexFolderOptions, 'documentsDir' | 'indexDir' | 'embedder' | 'chunking' | 'lockWaitMs' | 'allowPrivateAddresses'>> &
  Pick<IndexFolderOptions, 'vectorWeight'> & {
    captioner: ImageCaptioner | null;
  };

/**
 * How the profile says to index, for every indexer a user starts: folders, embedder, image reader, chunking, vector weight,
 * the private-network rule for `.url` files, and a lock wait of INDEX_LOCK_WAIT_MS.
 * @throws ConfigError for an unknown embedding or vision key; LLM errors from the embedder's probe.
 */
export async function indexOptionsForProfile(config: LoadedConfig, env: NodeJS.ProcessEnv = process.env): Promise<ProfileIndexOptions> {
  return {
    documentsDir: config.paths.documents,
    indexDir: config.paths.faissIndex,
    embedder: await embedderForProfile(config.profile.llm.embedding, config.models.models, env),
    captioner: await selectCaptioner(visionModel(config.profile, config.models, config.profileFile, config.modelsFile), env),
    chunking: config.profile.rag.chunking,
    ...(config.profile.rag.vector_weight === undefined ? {} : { vectorWeight: config.profile.rag.vector_weight }),
    lockWaitMs: INDEX_LOCK_WAIT_MS,
    allowPrivateAddresses: !config.profile.security.block_private_network,
  };
}

/**
 * The embedder profiles.yaml's `llm.embedding` names: `builtin` (the offline lexical embedder) or a models.yaml key
 * whose `embedding_model` is used (id `<type>:<embedding_model>`, e.g. `ollama:nomic-embed-text`). A model embedder
 * embeds one probe text to learn its dimension, so this can fail when the model is unreachable.
 * @throws ConfigError for an unknown key or a model without embedding_model; LLM errors from the probe.
 */
export async function embedderForProfile(setting: string, models: Record<string, ModelConfig>, env: NodeJS.ProcessEnv): Promise<Embedder> {
  if (setting === 'builtin') return createLexicalEmbedder();
  const config = models[setting];
  if (!config) {
    const keys = Object.keys(models);
    throw new ConfigError('profiles.yaml', 'llm.embedding', `builtin or a key of models.yaml${keys.length ? ` (${keys.join(', ')})` : ''}, got "${setting}"`);
  }
  return createModelEmbedder(config, env);
}

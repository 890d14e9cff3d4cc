// How the documents folder is indexed, stated once: read from the profile (cortex index, the page) or from the documents server's CORTEX_* variables.
import { isAbsolute, resolve } from 'node:path';
import type { LoadedConfig } from '../config/load-config.js';
import { visionModel, type ModelConfig } from '../config/models.js';
import { MAX_VECTOR_WEIGHT } from '../config/profiles.js';
import { ConfigError } from '../errors.js';
import { PROJECT_ROOT } from '../paths.js';
import type { ChunkingMode } from './chunk/chunk-document.js';
import { MAX_LEXICAL_DIMENSION, MIN_LEXICAL_DIMENSION } from './embed/lexical-embedder.js';
import { VISION_CALL_MAX_RETRIES, VISION_CALL_TIMEOUT_MS } from './vision/image-limits.js';

/** Request timeout for embedding calls named by CORTEX_EMBEDDING (no models.yaml entry to take it from). */
export const SETTING_EMBED_TIMEOUT_MS = 120_000;
/** Retries of a failed embedding request named by CORTEX_EMBEDDING. */
export const SETTING_EMBED_MAX_RETRIES = 3;
/** Request timeout of the semantic-chunking LLM named by CORTEX_CHUNKING_MODEL (a local model on a CPU is slow). */
export const CHUNKING_LLM_TIMEOUT_MS = 120_000;
/** Retries of a failed semantic-chunking request named by CORTEX_CHUNKING_MODEL. */
export const CHUNKING_LLM_MAX_RETRIES = 2;

/** Which embedder indexes and searches: the offline lexical one (optionally of another dimension), or a model's `embedding_model`. */
export type EmbeddingSetting = { kind: 'builtin'; dimension?: number } | { kind: 'model'; model: ModelConfig };

/** Everything an indexer of the documents folder is set up with, whoever starts it. */
export interface IndexerSettings {
  documentsDir: string;
  /** The index folder (faiss_index/), where the caption cache lives too. */
  indexDir: string;
  embedding: EmbeddingSetting;
  chunking: ChunkingMode;
  /** The LLM that splits text when `chunking` is semantic; null: semantic chunking falls back to structure, with a warning. */
  chunkingModel: ModelConfig | null;
  /** The model that reads images; null: Tesseract when installed, else images are left out. */
  vision: ModelConfig | null;
  /** The fused search's vector weight; undefined: the embedder's own. */
  vectorWeight: number | undefined;
  /** Fetch `.url` targets on private and loopback addresses too (profiles.yaml security.block_private_network: false). */
  allowPrivateAddresses: boolean;
  /** Where model hosts and keys are read (OLLAMA_HOST, GEMINI_API_KEY…). */
  env: NodeJS.ProcessEnv;
}

const MODEL_KINDS = 'ollama:<model>, gemini:<model>, openai:<model> or anthropic:<model>';
const EMBEDDING_KINDS = 'builtin, builtin:<dimension>, ollama:<model>, gemini:<model> or openai:<model>';
const TRUE_WORDS = new Set(['1', 'true', 'yes', 'on']);
const FALSE_WORDS = new Set(['0', 'false', 'no', 'off']);

/**
 * The embedding profiles.yaml `llm.embedding` names: `builtin`, or a key of models.yaml whose `embedding_model` is used.
 * @throws ConfigError naming `profileFile`'s llm.embedding when the key is not in `models`.
 */
export function embeddingFromProfile(key: string, models: Record<string, ModelConfig>, profileFile = 'profiles.yaml'): EmbeddingSetting {
  if (key === 'builtin') return { kind: 'builtin' };
  const model = models[key];
  if (!model) {
    const keys = Object.keys(models);
    throw new ConfigError(profileFile, 'llm.embedding', `builtin or a key of models.yaml${keys.length ? ` (${keys.join(', ')})` : ''}, got "${key}"`);
  }
  return { kind: 'model', model };
}

/**
 * The embedding a variable names: `builtin` (or empty), `builtin:<dimension>`, `ollama:<model>`, `gemini:<model>` or
 * `openai:<model>` (a model reached through OLLAMA_HOST / GEMINI_API_KEY / OPENAI_API_KEY).
 * @throws ConfigError naming `variable` and what it may hold.
 */
export function embeddingFromEnv(setting: string | undefined, variable = 'CORTEX_EMBEDDING'): EmbeddingSetting {
  const value = (setting ?? '').trim();
  if (value === '' || value === 'builtin') return { kind: 'builtin' };
  const colon = value.indexOf(':');
  const kind = colon < 0 ? value : value.slice(0, colon);
  const name = colon < 0 ? '' : value.slice(colon + 1).trim();
  if (kind === 'builtin') {
    if (!/^\d+$/u.test(name)) throw new ConfigError('environment', variable, `${EMBEDDING_KINDS} (got "${value}")`);
    const dimension = Number(name);
    if (dimension < MIN_LEXICAL_DIMENSION || dimension > MAX_LEXICAL_DIMENSION) {
      throw new ConfigError('environment', variable, `a builtin dimension from ${MIN_LEXICAL_DIMENSION} to ${MAX_LEXICAL_DIMENSION} (got "${value}")`);
    }
    return { kind: 'builtin', dimension };
  }
  if ((kind !== 'ollama' && kind !== 'gemini' && kind !== 'openai') || !name) throw new ConfigError('environment', variable, `${EMBEDDING_KINDS} (got "${value}")`);
  return { kind: 'model', model: { type: kind, model: name, embedding_model: name, timeout_ms: SETTING_EMBED_TIMEOUT_MS, max_retries: SETTING_EMBED_MAX_RETRIES } };
}

/** The embedding as a person would write it: `builtin`, `builtin:256`, `ollama:nomic-embed-text`. */
export function embeddingLabel(setting: EmbeddingSetting): string {
  if (setting.kind === 'builtin') return setting.dimension === undefined ? 'builtin' : `builtin:${setting.dimension}`;
  return `${setting.model.type}:${setting.model.embedding_model ?? setting.model.model}`;
}

/**
 * The settings of `cortex index` and the page's upload: the profile's folders, `llm.embedding`, `llm.vision`,
 * `rag.chunking`, `rag.vector_weight` and `security.block_private_network`. Semantic chunking gets no LLM here (it falls
 * back to structure with a warning, as it always has outside the documents server).
 * @throws ConfigError naming the profile file and key for an unknown embedding or vision key.
 */
function fromProfile(config: LoadedConfig, env: NodeJS.ProcessEnv = process.env): IndexerSettings {
  const { profile } = config;
  return {
    documentsDir: config.paths.documents,
    indexDir: config.paths.faissIndex,
    embedding: embeddingFromProfile(profile.llm.embedding, config.models.models, config.profileFile),
    chunking: profile.rag.chunking,
    chunkingModel: null,
    vision: visionModel(profile, config.models, config.profileFile, config.modelsFile),
    vectorWeight: profile.rag.vector_weight,
    allowPrivateAddresses: !profile.security.block_private_network,
    env,
  };
}

function folder(value: string | undefined, fallback: string, root: string): string {
  const raw = value?.trim();
  if (!raw) return resolve(root, fallback);
  return isAbsolute(raw) ? raw : resolve(root, raw);
}

/** An `<provider>:<model>` variable as a model config with these call limits; null when unset. */
function modelFromEnv(env: NodeJS.ProcessEnv, name: string, timeoutMs: number, maxRetries: number): ModelConfig | null {
  const value = env[name]?.trim();
  if (!value) return null;
  const match = /^(ollama|gemini|openai|anthropic):(.+)$/u.exec(value);
  if (!match) throw new ConfigError('environment', name, `${MODEL_KINDS} (got "${value}")`);
  return { type: match[1] as ModelConfig['type'], model: match[2]!, timeout_ms: timeoutMs, max_retries: maxRetries };
}

/**
 * The settings of the documents server, from the variables profiles.yaml's `ownServerEnv` passes it: CORTEX_DOCUMENTS_DIR
 * and CORTEX_FAISS_DIR (default <root>/documents and <root>/faiss_index; relative ones resolve against `root`, like
 * paths in profiles.yaml), CORTEX_EMBEDDING, CORTEX_CHUNKING (structural or semantic) with CORTEX_CHUNKING_MODEL,
 * CORTEX_VISION_MODEL, CORTEX_VECTOR_WEIGHT (0–MAX_VECTOR_WEIGHT) and CORTEX_BLOCK_PRIVATE_NETWORK (default true).
 * @throws ConfigError naming the variable and what was expected.
 */
function fromEnv(env: NodeJS.ProcessEnv, root = PROJECT_ROOT): IndexerSettings {
  const chunking = (env.CORTEX_CHUNKING?.trim() || 'structural') as ChunkingMode;
  if (chunking !== 'structural' && chunking !== 'semantic') {
    throw new ConfigError('environment', 'CORTEX_CHUNKING', `structural or semantic (got "${env.CORTEX_CHUNKING}")`);
  }
  const chunkingModel = modelFromEnv(env, 'CORTEX_CHUNKING_MODEL', CHUNKING_LLM_TIMEOUT_MS, CHUNKING_LLM_MAX_RETRIES);
  if (chunking === 'semantic' && !chunkingModel) {
    throw new ConfigError('environment', 'CORTEX_CHUNKING_MODEL', 'ollama:<model> or gemini:<model>, needed when CORTEX_CHUNKING is semantic');
  }
  const block = (env.CORTEX_BLOCK_PRIVATE_NETWORK?.trim() || 'true').toLowerCase();
  if (!TRUE_WORDS.has(block) && !FALSE_WORDS.has(block)) {
    throw new ConfigError('environment', 'CORTEX_BLOCK_PRIVATE_NETWORK', `true or false (got "${env.CORTEX_BLOCK_PRIVATE_NETWORK}")`);
  }
  const weightText = env.CORTEX_VECTOR_WEIGHT?.trim();
  const vectorWeight = weightText ? Number(weightText) : undefined;
  if (vectorWeight !== undefined && !(vectorWeight >= 0 && vectorWeight <= MAX_VECTOR_WEIGHT)) {
    throw new ConfigError('environment', 'CORTEX_VECTOR_WEIGHT', `a number from 0 to ${MAX_VECTOR_WEIGHT} (got "${weightText}")`);
  }
  return {
    documentsDir: folder(env.CORTEX_DOCUMENTS_DIR, 'documents', root),
    indexDir: folder(env.CORTEX_FAISS_DIR, 'faiss_index', root),
    embedding: embeddingFromEnv(env.CORTEX_EMBEDDING),
    chunking,
    chunkingModel,
    vision: modelFromEnv(env, 'CORTEX_VISION_MODEL', VISION_CALL_TIMEOUT_MS, VISION_CALL_MAX_RETRIES),
    vectorWeight,
    allowPrivateAddresses: FALSE_WORDS.has(block),
    env,
  };
}

/** The two ways to read {@link IndexerSettings}: `fromProfile(config, env)` and `fromEnv(env, root?)`. */
export const IndexerSettings = { fromProfile, fromEnv } as const;

// The documents server's settings, from environment variables (profiles.yaml passes `env` to each server).
import { isAbsolute, resolve } from 'node:path';
import type { ModelConfig } from '../../src/config/models.js';
import { ConfigError } from '../../src/errors.js';
import { PROJECT_ROOT } from '../../src/paths.js';
import type { ChunkingMode } from '../../src/rag/chunk/chunk-document.js';
import { MAX_VECTOR_WEIGHT } from '../../src/rag/embed/embedder.js';
import { VISION_CALL_MAX_RETRIES, VISION_CALL_TIMEOUT_MS } from '../../src/rag/vision/image-limits.js';

/** Request timeout of the semantic-chunking LLM (a local model on a CPU is slow). */
export const CHUNKING_LLM_TIMEOUT_MS = 120_000;
/** Retries of a failed semantic-chunking request. */
export const CHUNKING_LLM_MAX_RETRIES = 2;

export interface DocumentsSettings {
  /** CORTEX_DOCUMENTS_DIR, default <project>/documents. */
  documentsDir: string;
  /** CORTEX_FAISS_DIR, default <project>/faiss_index. */
  indexDir: string;
  /** CORTEX_EMBEDDING: builtin (default), builtin:<dimension>, ollama:<model> or gemini:<model>. */
  embedding: string;
  /** CORTEX_CHUNKING: structural (default) or semantic. */
  chunking: ChunkingMode;
  /** CORTEX_CHUNKING_MODEL (ollama:, gemini:, openai: or anthropic:<model>): the LLM for semantic chunking. */
  chunkingModel: ModelConfig | null;
  /** CORTEX_INDEX_AT_START: 1 (default) indexes in the background at start; 0 waits for the first search. */
  indexAtStart: boolean;
  /** CORTEX_VISION_MODEL (ollama:, gemini:, openai: or anthropic:<model>): reads images; unset → Tesseract when installed. */
  visionModel: ModelConfig | null;
  /** CORTEX_VECTOR_WEIGHT: the vector ranking's weight in the fused search (0–10); absent: the embedder's own. */
  vectorWeight: number | undefined;
  /** CORTEX_BLOCK_PRIVATE_NETWORK: true (default) refuses private and loopback addresses in web fetches (profiles.yaml security.block_private_network). */
  blockPrivateNetwork: boolean;
}

const TRUE_WORDS = new Set(['1', 'true', 'yes', 'on']);
const FALSE_WORDS = new Set(['0', 'false', 'no', 'off']);

function folder(value: string | undefined, fallback: string, root: string): string {
  const raw = value?.trim();
  if (!raw) return resolve(root, fallback);
  return isAbsolute(raw) ? raw : resolve(root, raw);
}

/** An `ollama:<model>` or `gemini:<model>` variable as a model config with these call limits; null when unset. */
function modelSetting(env: NodeJS.ProcessEnv, name: string, timeoutMs: number, maxRetries: number): ModelConfig | null {
  const value = env[name]?.trim();
  if (!value) return null;
  const match = /^(ollama|gemini|openai|anthropic):(.+)$/u.exec(value);
  if (!match) throw new ConfigError('environment', name, `ollama:<model>, gemini:<model>, openai:<model> or anthropic:<model> (got "${value}")`);
  return { type: match[1] as ModelConfig['type'], model: match[2]!, timeout_ms: timeoutMs, max_retries: maxRetries };
}

/**
 * Reads the settings. Relative folders resolve against the project folder (like paths in profiles.yaml).
 * @throws ConfigError naming the variable and what was expected.
 */
export function readDocumentsSettings(env: NodeJS.ProcessEnv, root = PROJECT_ROOT): DocumentsSettings {
  const chunking = (env.CORTEX_CHUNKING?.trim() || 'structural') as ChunkingMode;
  if (chunking !== 'structural' && chunking !== 'semantic') {
    throw new ConfigError('environment', 'CORTEX_CHUNKING', `structural or semantic (got "${env.CORTEX_CHUNKING}")`);
  }
  const chunkingModel = modelSetting(env, 'CORTEX_CHUNKING_MODEL', CHUNKING_LLM_TIMEOUT_MS, CHUNKING_LLM_MAX_RETRIES);
  if (chunking === 'semantic' && !chunkingModel) {
    throw new ConfigError('environment', 'CORTEX_CHUNKING_MODEL', 'ollama:<model> or gemini:<model>, needed when CORTEX_CHUNKING is semantic');
  }
  const visionModel = modelSetting(env, 'CORTEX_VISION_MODEL', VISION_CALL_TIMEOUT_MS, VISION_CALL_MAX_RETRIES);
  const atStart = env.CORTEX_INDEX_AT_START?.trim() || '1';
  if (atStart !== '0' && atStart !== '1') throw new ConfigError('environment', 'CORTEX_INDEX_AT_START', `0 or 1 (got "${atStart}")`);
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
    vectorWeight,
    documentsDir: folder(env.CORTEX_DOCUMENTS_DIR, 'documents', root),
    indexDir: folder(env.CORTEX_FAISS_DIR, 'faiss_index', root),
    embedding: env.CORTEX_EMBEDDING?.trim() || 'builtin',
    chunking,
    chunkingModel,
    visionModel,
    indexAtStart: atStart === '1',
    blockPrivateNetwork: TRUE_WORDS.has(block),
  };
}

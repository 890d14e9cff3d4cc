// Adapts LlmClient.embed (Ollama /api/embed, Gemini embedContent) to the Embedder contract.
import type { ModelConfig } from '../../config/models.js';
import { createLlmClient } from '../../llm/select.js';
import type { EmbedPurpose, LlmClient } from '../../llm/types.js';
import { ConfigError } from '../../errors.js';
import { EmbeddingError } from '../errors.js';
import type { Embedder } from './embedder.js';

/** Text embedded once to learn the model's dimension when it is not given. */
const DIMENSION_PROBE_TEXT = 'dimension probe';

/** What a model trained with task prefixes wants before each text, per purpose. */
export type TaskPrefixes = Record<EmbedPurpose, string>;

/**
 * Embedding models trained with a prefix per task, as their model cards say: nomic-embed-text ("search_document: ",
 * "search_query: ") and mxbai-embed-large (an instruction before queries only). Matched on the model's name,
 * whatever its namespace or tag.
 */
const TASK_PREFIXES: ReadonlyArray<[RegExp, TaskPrefixes]> = [
  [/(^|\/)nomic-embed-text(?=$|[:-])/i, { document: 'search_document: ', query: 'search_query: ' }],
  [/(^|\/)mxbai-embed-large(?=$|[:-])/i, { document: '', query: 'Represent this sentence for searching relevant passages: ' }],
];

/** The task prefixes `model` was trained with; undefined for a model that takes its texts as they are. */
export function taskPrefixesOf(model: string): TaskPrefixes | undefined {
  return TASK_PREFIXES.find(([name]) => name.test(model))?.[1];
}

/** Marks an id whose vectors were made with task prefixes: an index built without them is rebuilt, not mixed. */
const PREFIXED_ID_SUFFIX = '+task-prefixes';
/** The same for vectors made with the provider's task types (Gemini). */
const TASK_TYPED_ID_SUFFIX = '+task-types';

export interface LlmEmbedderOptions {
  llm: LlmClient;
  /** Id recorded in the index, e.g. `ollama:nomic-embed-text`. */
  id: string;
  /** Vector length; when absent, one probe text is embedded to learn it (so this call can fail like any request). */
  dimension?: number;
  /** Cosine similarity at which a vector hit counts without a shared term. Default 0.5. */
  relevanceFloor?: number;
  /** Put before each text for its purpose (see taskPrefixesOf); none: texts go as they are. */
  prefixes?: TaskPrefixes;
  /** Tell the provider each text's purpose (Gemini's task types). */
  sendPurpose?: boolean;
}

/**
 * An Embedder over `llm.embed`. Every answer is checked: one vector per text, each of `dimension` finite numbers.
 * @throws LlmRequestError from the client (unreachable, no such model), EmbeddingError for malformed answers.
 */
export async function createLlmEmbedder({ llm, id, dimension, relevanceFloor = 0.5, prefixes, sendPurpose = false }: LlmEmbedderOptions): Promise<Embedder> {
  const check = (vectors: number[][], expected: number, size: number | undefined): number[][] => {
    if (vectors.length !== expected) throw new EmbeddingError(id, `returned ${vectors.length} vectors for ${expected} texts`);
    for (const vector of vectors) {
      if (size !== undefined && vector.length !== size) throw new EmbeddingError(id, `returned a vector of length ${vector.length}, expected ${size}`);
      if (!vector.every(Number.isFinite)) throw new EmbeddingError(id, 'returned a vector holding a non-finite number');
    }
    return vectors;
  };
  let size = dimension;
  if (size === undefined) {
    const [probe] = check((await llm.embed([DIMENSION_PROBE_TEXT])).vectors, 1, undefined);
    size = probe!.length;
    if (size === 0) throw new EmbeddingError(id, 'returned an empty vector');
  }
  const fixed = size;
  return {
    id,
    dimension: fixed,
    relevanceFloor,
    embed: async (texts, purpose = 'document') => {
      if (texts.length === 0) return [];
      const prefix = prefixes?.[purpose] ?? '';
      const sent = prefix ? texts.map((t) => prefix + t) : texts;
      return check((await llm.embed(sent, sendPurpose ? { purpose } : {})).vectors, texts.length, fixed);
    },
  };
}

/**
 * The Embedder for a models.yaml entry's `embedding_model` (id `<type>:<embedding_model>`, e.g. `ollama:all-minilm`;
 * a model trained with task prefixes gets them, and `+task-prefixes` on its id, e.g. `ollama:nomic-embed-text+task-prefixes`;
 * a Gemini model is told each text's task type, `+task-types`).
 * @throws ConfigError when the entry has no embedding_model; whatever createLlmClient and createLlmEmbedder throw.
 */
export async function createModelEmbedder(config: ModelConfig, env: NodeJS.ProcessEnv): Promise<Embedder> {
  if (!config.embedding_model) {
    throw new ConfigError('models.yaml', 'embedding_model', `model "${config.model}" needs an embedding_model to be used for embeddings`);
  }
  const prefixes = taskPrefixesOf(config.embedding_model);
  const sendPurpose = config.type === 'gemini';
  const id = `${config.type}:${config.embedding_model}${prefixes ? PREFIXED_ID_SUFFIX : ''}${sendPurpose ? TASK_TYPED_ID_SUFFIX : ''}`;
  return createLlmEmbedder({ llm: createLlmClient(config, env), id, sendPurpose, ...(prefixes ? { prefixes } : {}) });
}

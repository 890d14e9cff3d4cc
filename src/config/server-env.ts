// The environment our own MCP servers read (CORTEX_* settings), derived from the profile so it is configured once.
import { ConfigError } from '../errors.js';
import type { ModelConfig, ModelsFile } from './models.js';
import type { Profile } from './profiles.js';

interface ServerEnvInput {
  profile: Profile;
  models: ModelsFile;
  profileFile: string;
  modelsFile: string;
  paths: { documents: string; faissIndex: string };
  env: NodeJS.ProcessEnv;
}

/**
 * Variables passed to every configured server (a server's own `env` overrides them): the network policy,
 * the documents and index folders, the embedding and chunking models — and, only when one of those is an
 * LLM, where to reach it and its key (the SDK's stdio transport forwards almost nothing by default).
 * @throws ConfigError when llm.embedding or semantic chunking names a model that is not usable.
 */
export function sharedServerEnv({ profile, models, profileFile, modelsFile, paths, env }: ServerEnvInput): Record<string, string> {
  const shared: Record<string, string> = {
    CORTEX_BLOCK_PRIVATE_NETWORK: String(profile.security.block_private_network),
    CORTEX_DOCUMENTS_DIR: paths.documents,
    CORTEX_FAISS_DIR: paths.faissIndex,
    CORTEX_CHUNKING: profile.rag.chunking,
    CORTEX_EMBEDDING: 'builtin',
  };
  if (profile.rag.vector_weight !== undefined) shared.CORTEX_VECTOR_WEIGHT = String(profile.rag.vector_weight);
  const used: ModelConfig[] = [];
  if (profile.llm.embedding !== 'builtin') {
    const model = models.models[profile.llm.embedding];
    if (!model) throw new ConfigError(profileFile, 'llm.embedding', `"${profile.llm.embedding}" is not a key of ${modelsFile} (or use builtin)`);
    if (!model.embedding_model) throw new ConfigError(modelsFile, `models.${profile.llm.embedding}.embedding_model`, 'needed because profiles.yaml llm.embedding uses this model');
    shared.CORTEX_EMBEDDING = `${model.type}:${model.embedding_model}`;
    used.push(model);
  }
  if (profile.rag.chunking === 'semantic') {
    const model = models.models[profile.llm.text_generation];
    if (!model) throw new ConfigError(profileFile, 'rag.chunking', `semantic chunking needs llm.text_generation to be a key of ${modelsFile} (it is "${profile.llm.text_generation}")`);
    shared.CORTEX_CHUNKING_MODEL = `${model.type}:${model.model}`;
    used.push(model);
  }
  for (const model of used) Object.assign(shared, modelAccessEnv(model, env));
  return shared;
}

function modelAccessEnv(model: ModelConfig, env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  if (model.type === 'ollama') {
    const host = model.base_url ?? env.OLLAMA_HOST;
    if (host) out.OLLAMA_HOST = host;
  } else {
    const key = (model.api_key_env && env[model.api_key_env]) || env.GEMINI_API_KEY || env.GOOGLE_API_KEY;
    if (key) out.GEMINI_API_KEY = key;
    const base = model.base_url ?? env.GEMINI_BASE_URL;
    if (base) out.GEMINI_BASE_URL = base;
  }
  return out;
}

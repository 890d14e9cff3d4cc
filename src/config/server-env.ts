// The environment each server gets: a minimal base for all, our CORTEX_* settings and model keys only for our own servers.
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { ConfigError } from '../errors.js';
import { PROJECT_ROOT } from '../paths.js';
import { visionModel, type ModelConfig, type ModelsFile } from './models.js';
import type { Profile } from './profiles.js';

/** Our own servers, by the name of their built file (dist/bundle/NAME.js or dist/mcp-servers/NAME/main.js). */
export type OwnServerKind = 'math' | 'documents' | 'websearch' | 'history';
const OWN_SERVER_KINDS: readonly OwnServerKind[] = ['math', 'documents', 'websearch', 'history'];

/** Variables every spawned server inherits besides its own `env`: the SDK's defaults plus locale and temp dir. */
const BASE_ENV_NAMES = ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER', 'LANG', 'LANGUAGE', 'TZ', 'TMPDIR'];

/** The minimal base every stdio server gets (PATH, HOME, locale…); nothing else of the user's environment crosses. */
export function baseServerEnv(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    const wanted = BASE_ENV_NAMES.includes(name) || name.startsWith('LC_');
    // A value starting with "()" is an exported shell function: never forwarded (as the SDK does).
    if (wanted && value !== undefined && !value.startsWith('()')) out[name] = value;
  }
  return out;
}

/** Which of our servers a resolved script is, or null for anyone else's. Only files inside our dist/ count. */
export function ownServerKind(script: string): OwnServerKind | null {
  const file = resolve(script);
  if (!file.startsWith(resolve(PROJECT_ROOT, 'dist') + '/')) return null;
  const name = basename(file) === 'main.js' ? basename(dirname(file)) : basename(file, '.js');
  return OWN_SERVER_KINDS.find((k) => k === name) ?? null;
}

interface ServerEnvInput {
  profile: Profile;
  models: ModelsFile;
  profileFile: string;
  modelsFile: string;
  paths: { documents: string; faissIndex: string; memory?: string };
  env: NodeJS.ProcessEnv;
}

/**
 * The environment of each of our servers (a server's own `env` in the profile overrides it): all get the CORTEX_*
 * settings (network policy, documents and index folders, embedding, chunking and vision); only documents gets where to
 * reach the embedding / chunking / vision LLM and its key, and only when one of those is an LLM. Third-party servers get none of it.
 * Expects llm.embedding already checked (loadConfig's checkModelKeys).
 * @throws ConfigError when semantic chunking or llm.vision names a model that is not usable.
 */
export function ownServerEnv({ profile, models, profileFile, modelsFile, paths, env }: ServerEnvInput): Record<OwnServerKind, Record<string, string>> {
  const settings: Record<string, string> = {
    CORTEX_BLOCK_PRIVATE_NETWORK: String(profile.security.block_private_network),
    CORTEX_DOCUMENTS_DIR: paths.documents,
    CORTEX_FAISS_DIR: paths.faissIndex,
    CORTEX_CHUNKING: profile.rag.chunking,
    CORTEX_EMBEDDING: 'builtin',
    // Node 22.1+ keeps V8's compiled code of the server's bundle here (the folder module.enableCompileCache() uses), so
    // each start after the first skips compiling it. Older Node versions ignore it.
    NODE_COMPILE_CACHE: join(tmpdir(), 'node-compile-cache'),
  };
  if (profile.rag.vector_weight !== undefined) settings.CORTEX_VECTOR_WEIGHT = String(profile.rag.vector_weight);
  const used: ModelConfig[] = [];
  if (profile.llm.embedding !== 'builtin') {
    // loadConfig's checkModelKeys has made sure the key exists and names an embedding_model.
    const model = models.models[profile.llm.embedding]!;
    settings.CORTEX_EMBEDDING = `${model.type}:${model.embedding_model}`;
    used.push(model);
  }
  if (profile.rag.chunking === 'semantic') {
    const model = models.models[profile.llm.text_generation];
    if (!model) throw new ConfigError(profileFile, 'rag.chunking', `semantic chunking needs llm.text_generation to be a key of ${modelsFile} (it is "${profile.llm.text_generation}")`);
    settings.CORTEX_CHUNKING_MODEL = `${model.type}:${model.model}`;
    used.push(model);
  }
  const vision = visionModel(profile, models, profileFile, modelsFile);
  if (vision) {
    settings.CORTEX_VISION_MODEL = `${vision.type}:${vision.model}`;
    used.push(vision);
  }
  const modelAccess: Record<string, string> = {};
  for (const model of used) Object.assign(modelAccess, modelAccessEnv(model, env));
  const history: Record<string, string> = paths.memory ? { CORTEX_MEMORY_DIR: paths.memory } : {};
  return { math: { ...settings }, websearch: { ...settings }, documents: { ...settings, ...modelAccess }, history: { ...settings, ...history } };
}

function modelAccessEnv(model: ModelConfig, env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  const keyOf = (...names: string[]) => names.map((name) => env[name]).find(Boolean);
  if (model.type === 'ollama') {
    const host = model.base_url ?? env.OLLAMA_HOST;
    if (host) out.OLLAMA_HOST = host;
  } else if (model.type === 'openai' || model.type === 'anthropic') {
    // The server's client reads the ecosystem's own variables.
    const prefix = model.type === 'openai' ? 'OPENAI' : 'ANTHROPIC';
    const key = keyOf(...(model.api_key_env ? [model.api_key_env] : []), `${prefix}_API_KEY`);
    if (key) out[`${prefix}_API_KEY`] = key;
    const base = model.base_url ?? env[`${prefix}_BASE_URL`];
    if (base) out[`${prefix}_BASE_URL`] = base;
  } else {
    const key = keyOf(...(model.api_key_env ? [model.api_key_env] : []), 'GEMINI_API_KEY', 'GOOGLE_API_KEY');
    if (key) out.GEMINI_API_KEY = key;
    const base = model.base_url ?? env.GEMINI_BASE_URL;
    if (base) out.GEMINI_BASE_URL = base;
  }
  return out;
}

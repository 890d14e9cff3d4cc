// Reads profiles.yaml and models.yaml from disk and resolves what they name into absolute paths.
import { existsSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { ConfigError } from '../errors.js';
import { PROJECT_ROOT } from '../paths.js';
import { parseModels, type ModelsFile } from './models.js';
import { configLine, isEmptyConfig } from './parse.js';
import { parseProfile, type Profile } from './profiles.js';
import { readConfigFile } from './read-config-file.js';
import { sharedServerEnv } from './server-env.js';

/** An MCP server ready to spawn: absolute paths, its own environment additions. */
export interface ServerSpec {
  id: string;
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  description: string;
  capabilities: string[];
}

export interface LoadedConfig {
  profile: Profile;
  models: ModelsFile;
  profileFile: string;
  modelsFile: string;
  /** The parent of the folder holding the profile; relative paths resolve against it. */
  root: string;
  paths: { documents: string; memory: string; faissIndex: string };
  servers: ServerSpec[];
  /** Problems worth telling the user that do not stop the run (e.g. an empty profile taken as all defaults); the CLI prints them. */
  warnings: string[];
}

export interface LoadConfigOptions {
  /** Defaults to <project>/config/profiles.yaml. */
  profilePath?: string;
  /** Defaults to models.yaml beside the profile; a missing default file means no models. */
  modelsPath?: string;
  /** Where model hosts and keys for the servers come from. Default process.env. */
  env?: NodeJS.ProcessEnv;
}

/** Loads and validates both config files; throws ConfigError on the first problem. */
export function loadConfig({ profilePath, modelsPath, env = process.env }: LoadConfigOptions = {}): LoadedConfig {
  const profileFile = resolve(profilePath ?? resolve(PROJECT_ROOT, 'config', 'profiles.yaml'));
  const profileText = readConfigFile(profileFile);
  const profile = parseProfile(profileText, profileFile);
  const root = dirname(dirname(profileFile));
  const modelsFile = resolve(modelsPath ?? resolve(dirname(profileFile), 'models.yaml'));
  const models =
    modelsPath || existsSync(modelsFile) ? parseModels(readConfigFile(modelsFile), modelsFile) : { models: {} };
  checkModelKeys(profile, models, { profileFile, profileText, modelsFile });
  // An empty profile is nearly always a truncated or wrong file, so say so; `{}` asks for every default silently.
  const warnings = isEmptyConfig(profileText)
    ? [`${profileFile} is empty (only whitespace or comments), so every setting has its default; write {} in it to say that on purpose`]
    : [];
  const at = (p: string) => (isAbsolute(p) ? p : resolve(root, p));
  const paths = { documents: at(profile.paths.documents), memory: at(profile.paths.memory), faissIndex: at(profile.paths.faiss_index) };
  const shared = sharedServerEnv({ profile, models, profileFile, modelsFile, paths, env });
  return { profile, models, profileFile, modelsFile, root, paths, servers: resolveServers(profile, profileFile, at, shared), warnings };
}

/**
 * The models the profile names must exist in models.yaml (and an embedding model must say which embedding model it
 * uses); the error points at the profile line naming the key, where the mistake is.
 */
function checkModelKeys(profile: Profile, models: ModelsFile, where: { profileFile: string; profileText: string; modelsFile: string }): void {
  const defined = Object.keys(models.models);
  const known = defined.length ? `defined there: ${defined.join(', ')}` : 'it defines none';
  const fail = (key: 'text_generation' | 'embedding', expected: string): never => {
    throw new ConfigError(where.profileFile, `llm.${key}`, expected, { line: configLine(where.profileText, ['llm', key]) });
  };
  const { text_generation: text, embedding } = profile.llm;
  if (text !== 'auto' && !models.models[text]) fail('text_generation', `names the model "${text}", which ${where.modelsFile} does not define (${known}); or use "auto"`);
  if (embedding === 'builtin') return;
  const model = models.models[embedding];
  if (!model) fail('embedding', `names the model "${embedding}", which ${where.modelsFile} does not define (${known}); or use "builtin"`);
  else if (!model.embedding_model) fail('embedding', `names the model "${embedding}", whose entry in ${where.modelsFile} has no embedding_model`);
}

function resolveServers(profile: Profile, profileFile: string, at: (p: string) => string, shared: Record<string, string>): ServerSpec[] {
  const specs: ServerSpec[] = profile.mcp_servers.map((s) => ({
    id: s.id,
    command: s.script ? process.execPath : s.command!,
    args: s.script ? [at(s.script), ...s.args] : s.args,
    cwd: at(s.cwd ?? '.'),
    env: { ...shared, ...s.env },
    description: s.description,
    capabilities: s.capabilities,
  }));
  for (const [id, s] of Object.entries(profile.mcpServers ?? {})) {
    specs.push({ id, command: s.command, args: s.args, cwd: at(s.cwd ?? '.'), env: { ...shared, ...s.env }, description: s.description, capabilities: [] });
  }
  const seen = new Set<string>();
  for (const s of specs) {
    if (seen.has(s.id)) throw new ConfigError(profileFile, 'mcp_servers', `server id "${s.id}" is defined twice`);
    seen.add(s.id);
  }
  return specs;
}

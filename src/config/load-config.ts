// Reads profiles.yaml and models.yaml from disk and resolves what they name into absolute paths.
import { existsSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { ConfigError } from '../errors.js';
import { PROJECT_ROOT } from '../paths.js';
import { projectRootOf, readClientConfig, readProfileServers, type EntryContext, type ServerEntries } from './mcp-entries.js';
import { parseModels, type ModelsFile } from './models.js';
import { configLine, isEmptyConfig } from './parse.js';
import { parseProfile, UNUSED_PROFILE_KEYS, type Profile } from './profiles.js';
import { readConfigFile } from './read-config-file.js';
import { ownServerEnv } from './server-env.js';
import type { DisabledServer, ServerSpec } from './server-spec.js';

export type { DisabledServer, ServerSpec } from './server-spec.js';

export interface LoadedConfig {
  profile: Profile;
  models: ModelsFile;
  profileFile: string;
  modelsFile: string;
  /** The profile's folder, or its parent when that folder is `config/`; relative paths resolve against it. */
  root: string;
  paths: { documents: string; memory: string; faissIndex: string; cache: string; skills: string };
  /** Servers to start, from the profile then each `--mcp-config` file; ids are unique. */
  servers: ServerSpec[];
  /** Servers that will not start: `disabled: true`, or a broken entry (its one-line reason). */
  disabledServers: DisabledServer[];
  /** Problems that do not stop the run (keys we ignored, ids given twice, an empty profile); the CLI prints them. */
  warnings: string[];
  /** Folders offered to MCP servers as roots (profiles.yaml mcp.roots). */
  roots: string[];
}

export interface LoadConfigOptions {
  /** Defaults to <project>/config/profiles.yaml. */
  profilePath?: string;
  /** Defaults to models.yaml beside the profile; a missing default file means no models. */
  modelsPath?: string;
  /** Where model hosts and keys for the servers come from. Default process.env. */
  env?: NodeJS.ProcessEnv;
  /** `--mcp-config` files: more servers in the shapes of Claude Desktop, Claude Code, VS Code or Cursor. */
  mcpConfigFiles?: string[];
}

/** Loads and validates both config files (and any `--mcp-config` files); throws ConfigError on the first fatal problem. */
export function loadConfig({ profilePath, modelsPath, env = process.env, mcpConfigFiles = [] }: LoadConfigOptions = {}): LoadedConfig {
  const profileFile = resolve(profilePath ?? resolve(PROJECT_ROOT, 'config', 'profiles.yaml'));
  const profileText = readConfigFile(profileFile);
  const profile = parseProfile(profileText, profileFile);
  const root = projectRootOf(profileFile);
  const modelsFile = resolve(modelsPath ?? resolve(dirname(profileFile), 'models.yaml'));
  const models =
    modelsPath || existsSync(modelsFile) ? parseModels(readConfigFile(modelsFile), modelsFile) : { models: {} };
  checkModelKeys(profile, models, { profileFile, profileText, modelsFile });
  // An empty profile is nearly always a truncated or wrong file, so say so; `{}` asks for every default silently.
  const emptyWarning = isEmptyConfig(profileText)
    ? [`${profileFile} is empty (only whitespace or comments), so every setting has its default; write {} in it to say that on purpose`]
    : [];
  for (const [section, key] of UNUSED_PROFILE_KEYS) {
    if ((profile[section as keyof Profile] as Record<string, unknown>)[key] !== undefined) {
      emptyWarning.push(`${profileFile}:${configLine(profileText, [section, key])}: ${section}.${key} is not used by cortex (ignored); remove it`);
    }
  }
  const at = (p: string) => (isAbsolute(p) ? p : resolve(root, p));
  const paths = {
    documents: at(profile.paths.documents),
    memory: at(profile.paths.memory),
    faissIndex: at(profile.paths.faiss_index),
    cache: at(profile.paths.cache),
    skills: at(profile.paths.skills),
  };
  const own = ownServerEnv({ profile, models, profileFile, modelsFile, paths, env });
  const context = (file: string): EntryContext => ({ file, root: projectRootOf(file), env, own, startTimeoutMs: profile.mcp.start_timeout_ms, ...(profile.mcp.oauth_client_metadata_url ? { clientMetadataUrl: profile.mcp.oauth_client_metadata_url } : {}) });
  const sources: ServerEntries[] = [readProfileServers(profile, profileText, context(profileFile))];
  for (const file of mcpConfigFiles.map((f) => resolve(f))) sources.push(readClientConfig(readConfigFile(file), context(file)));
  const roots = (profile.mcp.roots ?? [paths.documents, process.cwd()]).map(at);
  const merged = mergeSources(sources);
  return { profile, models, profileFile, modelsFile, root, paths, roots, ...merged, warnings: [...emptyWarning, ...merged.warnings] };
}

/**
 * The models the profile names must exist in models.yaml (and an embedding model must say which embedding model it
 * uses); the error points at the profile line naming the key, where the mistake is.
 */
/** A provider model named directly, e.g. ollama:llama3.1:8b, anthropic:claude-haiku-4-5. */
const PROVIDER_MODEL_RE = /^(gemini|ollama|openai|anthropic):.+$/;

function checkModelKeys(profile: Profile, models: ModelsFile, where: { profileFile: string; profileText: string; modelsFile: string }): void {
  const defined = Object.keys(models.models);
  const known = defined.length ? `defined there: ${defined.join(', ')}` : 'it defines none';
  const fail = (key: 'text_generation' | 'embedding' | 'perception' | 'decision' | 'extraction', expected: string): never => {
    throw new ConfigError(where.profileFile, `llm.${key}`, expected, { line: configLine(where.profileText, ['llm', key]) });
  };
  const { text_generation: text, embedding } = profile.llm;
  if (text !== 'auto' && !models.models[text]) fail('text_generation', `names the model "${text}", which ${where.modelsFile} does not define (${known}); or use "auto"`);
  for (const stage of ['perception', 'decision', 'extraction'] as const) {
    const setting = profile.llm[stage];
    if (setting === undefined || setting === 'auto' || models.models[setting] || PROVIDER_MODEL_RE.test(setting)) continue;
    fail(stage, `names the model "${setting}", which ${where.modelsFile} does not define (${known}); or use a provider model such as openai:gpt-4.1-mini`);
  }
  if (embedding === 'builtin') return;
  const model = models.models[embedding];
  if (!model) fail('embedding', `names the model "${embedding}", which ${where.modelsFile} does not define (${known}); or use "builtin"`);
  else if (model.type === 'anthropic') fail('embedding', `names the model "${embedding}", an Anthropic entry, and Anthropic serves no embedding models; use "builtin" or another entry`);
  else if (!model.embedding_model) fail('embedding', `names the model "${embedding}", whose entry in ${where.modelsFile} has no embedding_model`);
}

/** One list of servers; an id given twice keeps its first definition and warns about the second. */
function mergeSources(sources: ServerEntries[]): Pick<LoadedConfig, 'servers' | 'disabledServers' | 'warnings'> {
  const servers: ServerSpec[] = [];
  const disabledServers: DisabledServer[] = [];
  const warnings: string[] = [];
  const seen = new Map<string, string>();
  for (const source of sources) {
    warnings.push(...source.warnings);
    for (const item of [...source.specs, ...source.disabled]) {
      const first = seen.get(item.id);
      const where = item.source;
      if (first !== undefined) {
        warnings.push(`${where}: server id "${item.id}" is already defined at ${first}; this one is ignored`);
        continue;
      }
      seen.set(item.id, where ?? '');
      if ('kind' in item) disabledServers.push(item);
      else servers.push(item);
    }
  }
  return { servers, disabledServers, warnings };
}

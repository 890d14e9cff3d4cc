// Reads profiles.yaml and models.yaml from disk and resolves what they name into absolute paths.
import { readFileSync, existsSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { ConfigError } from '../errors.js';
import { PROJECT_ROOT } from '../paths.js';
import { parseModels, type ModelsFile } from './models.js';
import { parseProfile, type Profile } from './profiles.js';
import { sharedServerEnv } from './server-env.js';

/** Config files larger than this are refused unread: no real profile comes close. */
const MAX_CONFIG_BYTES = 1_000_000;

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
}

export interface LoadConfigOptions {
  /** Defaults to <project>/config/profiles.yaml. */
  profilePath?: string;
  /** Defaults to models.yaml beside the profile; a missing default file means no models. */
  modelsPath?: string;
  /** Where model hosts and keys for the servers come from. Default process.env. */
  env?: NodeJS.ProcessEnv;
}

function readConfigFile(file: string): string {
  if (!existsSync(file)) throw new ConfigError(file, '', 'file not found');
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(file, '', `could not be read (${(err as NodeJS.ErrnoException).code ?? err})`, { cause: err });
  }
  if (text.length > MAX_CONFIG_BYTES) throw new ConfigError(file, '', `larger than ${MAX_CONFIG_BYTES} bytes`);
  return text;
}

/** Loads and validates both config files; throws ConfigError on the first problem. */
export function loadConfig({ profilePath, modelsPath, env = process.env }: LoadConfigOptions = {}): LoadedConfig {
  const profileFile = resolve(profilePath ?? resolve(PROJECT_ROOT, 'config', 'profiles.yaml'));
  const profile = parseProfile(readConfigFile(profileFile), profileFile);
  const root = dirname(dirname(profileFile));
  const modelsFile = resolve(modelsPath ?? resolve(dirname(profileFile), 'models.yaml'));
  const models =
    modelsPath || existsSync(modelsFile) ? parseModels(readConfigFile(modelsFile), modelsFile) : { models: {} };
  const at = (p: string) => (isAbsolute(p) ? p : resolve(root, p));
  const paths = { documents: at(profile.paths.documents), memory: at(profile.paths.memory), faissIndex: at(profile.paths.faiss_index) };
  const shared = sharedServerEnv({ profile, models, profileFile, modelsFile, paths, env });
  return { profile, models, profileFile, modelsFile, root, paths, servers: resolveServers(profile, profileFile, at, shared) };
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

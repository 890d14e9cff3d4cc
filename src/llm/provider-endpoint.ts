// Where a hosted provider is and which key it gets: the models.yaml entry first, then the ecosystem's own variables.
import type { ModelConfig } from '../config/models.js';

/** The key and where it came from: `config.api_key_env`, else `variable` (the first set and not blank). */
export function findKey(config: Pick<ModelConfig, 'api_key_env'>, variable: string, env: NodeJS.ProcessEnv): { key: string; source: string } | undefined {
  for (const name of config.api_key_env ? [config.api_key_env, variable] : [variable]) {
    const key = env[name]?.trim();
    if (key) return { key, source: name };
  }
  return undefined;
}

/** The endpoint: `config.base_url`, else the `variable` (e.g. OPENAI_BASE_URL), else `fallback`; no trailing slash. */
export function baseUrlOf(config: Pick<ModelConfig, 'base_url'>, variable: string, fallback: string, env: NodeJS.ProcessEnv): string {
  return (config.base_url ?? (env[variable]?.trim() || fallback)).replace(/\/+$/, '');
}

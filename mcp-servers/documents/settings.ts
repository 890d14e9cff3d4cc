// The documents server's settings, from environment variables (profiles.yaml passes `env` to each server).
import { ConfigError } from '../../src/errors.js';
import { PROJECT_ROOT } from '../../src/paths.js';
import { IndexerSettings } from '../../src/rag/indexer-settings.js';

export interface DocumentsSettings {
  /** How the folder is indexed: CORTEX_DOCUMENTS_DIR, CORTEX_FAISS_DIR, CORTEX_EMBEDDING… (see IndexerSettings.fromEnv). */
  indexer: IndexerSettings;
  /** CORTEX_INDEX_AT_START: 1 (default) indexes in the background once the client has initialized; 0 waits for the first search. */
  indexAtStart: boolean;
}

/**
 * Reads the settings. Relative folders resolve against `root`, the project folder (like paths in profiles.yaml).
 * @throws ConfigError naming the variable and what was expected.
 */
export function readDocumentsSettings(env: NodeJS.ProcessEnv, root = PROJECT_ROOT): DocumentsSettings {
  const indexer = IndexerSettings.fromEnv(env, root);
  const atStart = env.CORTEX_INDEX_AT_START?.trim() || '1';
  if (atStart !== '0' && atStart !== '1') throw new ConfigError('environment', 'CORTEX_INDEX_AT_START', `0 or 1 (got "${atStart}")`);
  return { indexer, indexAtStart: atStart === '1' };
}

// IndexerSettings: the profile (cortex index, the page) and the documents server's variables give the same indexer.
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { ownServerEnv } from '../../src/config/server-env.js';
import { embeddingFromEnv, embeddingLabel, IndexerSettings } from '../../src/rag/indexer-settings.js';

const roots: string[] = [];
afterAll(() => roots.forEach((root) => rmSync(root, { recursive: true, force: true })));

/** A project folder holding config/profiles.yaml and config/models.yaml; the loaded profile. */
function loadProject(profile: string, models = 'models:\n  local: {type: ollama, model: llava, embedding_model: nomic-embed-text}\n') {
  const root = mkdtempSync(join(tmpdir(), 'cortex-indexer-settings-'));
  roots.push(root);
  mkdirSync(join(root, 'config'));
  writeFileSync(join(root, 'config', 'profiles.yaml'), profile);
  writeFileSync(join(root, 'config', 'models.yaml'), models);
  return loadConfig({ profilePath: join(root, 'config', 'profiles.yaml'), env: {} });
}

describe('IndexerSettings', () => {
  it('reads the same indexer from the profile as the documents server reads from the variables the profile gives it', () => {
    const config = loadProject(
      'paths: {documents: docs, faiss_index: idx}\nllm: {embedding: local, vision: local}\nrag: {vector_weight: 0.25}\nsecurity: {block_private_network: false}\n',
    );
    const fromProfile = IndexerSettings.fromProfile(config, {});
    const serverEnv = ownServerEnv({ ...config, paths: config.paths, env: {} }).documents;
    const fromEnv = IndexerSettings.fromEnv(serverEnv, config.root);
    const shared = (s: IndexerSettings) => ({
      documentsDir: s.documentsDir,
      indexDir: s.indexDir,
      embedding: embeddingLabel(s.embedding),
      chunking: s.chunking,
      vision: s.vision && `${s.vision.type}:${s.vision.model}`,
      vectorWeight: s.vectorWeight,
      allowPrivateAddresses: s.allowPrivateAddresses,
    });
    expect(shared(fromProfile)).toEqual({
      documentsDir: join(config.root, 'docs'),
      indexDir: join(config.root, 'idx'),
      embedding: 'ollama:nomic-embed-text',
      chunking: 'structural',
      vision: 'ollama:llava',
      vectorWeight: 0.25,
      allowPrivateAddresses: true,
    });
    expect(shared(fromEnv)).toEqual(shared(fromProfile));
  });

  it('names the profile file and key, or the variable, that holds a bad value', () => {
    const config = loadProject('llm: {vision: local}\n');
    const noVision = { ...config, profile: { ...config.profile, llm: { ...config.profile.llm, vision: 'missing' } } };
    expect(() => IndexerSettings.fromProfile(noVision, {})).toThrow(new RegExp(`${config.profileFile.replaceAll('.', '\\.')}: llm\\.vision: "missing" is not a key`));
    const noEmbedding = { ...config, profile: { ...config.profile, llm: { ...config.profile.llm, embedding: 'remote' } } };
    expect(() => IndexerSettings.fromProfile(noEmbedding, {})).toThrow(/profiles\.yaml: llm\.embedding: builtin or a key of models\.yaml \(local\), got "remote"/);
    expect(() => IndexerSettings.fromEnv({ CORTEX_EMBEDDING: 'builtin:10' })).toThrow(/environment: CORTEX_EMBEDDING: a builtin dimension from 64 to 4096 \(got "builtin:10"\)/);
    expect(() => IndexerSettings.fromEnv({ CORTEX_EMBEDDING: 'word2vec' })).toThrow(/CORTEX_EMBEDDING: builtin, builtin:<dimension>, ollama:<model>/);
  });

  it('reads builtin:<dimension> as the lexical embedder of that size', () => {
    expect(embeddingFromEnv('builtin:256')).toEqual({ kind: 'builtin', dimension: 256 });
    expect(embeddingLabel(embeddingFromEnv(' builtin '))).toBe('builtin');
  });
});

// The documents server's environment settings and its lazily created library.
import { describe, expect, it } from 'vitest';
import { createLazyLibrary } from '../../mcp-servers/documents/lazy-library.js';
import { readDocumentsSettings } from '../../mcp-servers/documents/settings.js';
import type { DocumentLibrary } from '../../src/rag/document-library.js';
import { embeddingLabel } from '../../src/rag/indexer-settings.js';

describe('readDocumentsSettings', () => {
  it('defaults to the project folders, the built-in embedder and structural chunking', () => {
    expect(readDocumentsSettings({}, '/proj')).toEqual({
      indexer: {
        documentsDir: '/proj/documents',
        indexDir: '/proj/faiss_index',
        embedding: { kind: 'builtin' },
        chunking: 'structural',
        chunkingModel: null,
        vision: null,
        allowPrivateAddresses: false,
        vectorWeight: undefined,
        env: {},
      },
      indexAtStart: true,
    });
  });

  it('reads every variable, resolving relative folders against the project folder', () => {
    const settings = readDocumentsSettings(
      { CORTEX_DOCUMENTS_DIR: 'my-docs', CORTEX_FAISS_DIR: '/var/idx', CORTEX_EMBEDDING: 'ollama:nomic-embed-text', CORTEX_CHUNKING: 'semantic', CORTEX_CHUNKING_MODEL: 'ollama:qwen2.5:7b', CORTEX_VISION_MODEL: 'gemini:gemini-2.0-flash', CORTEX_INDEX_AT_START: '0', CORTEX_BLOCK_PRIVATE_NETWORK: 'false', CORTEX_VECTOR_WEIGHT: '0.5' },
      '/proj',
    );
    expect(settings).toMatchObject({ indexer: { documentsDir: '/proj/my-docs', indexDir: '/var/idx', chunking: 'semantic', allowPrivateAddresses: true, vectorWeight: 0.5 }, indexAtStart: false });
    expect(embeddingLabel(settings.indexer.embedding)).toBe('ollama:nomic-embed-text');
    expect(settings.indexer.chunkingModel).toMatchObject({ type: 'ollama', model: 'qwen2.5:7b' });
    expect(settings.indexer.vision).toMatchObject({ type: 'gemini', model: 'gemini-2.0-flash' });
  });

  it('names the variable and the expectation when a value is wrong', () => {
    expect(() => readDocumentsSettings({ CORTEX_CHUNKING: 'clever' })).toThrow(/CORTEX_CHUNKING: structural or semantic \(got "clever"\)/);
    expect(() => readDocumentsSettings({ CORTEX_CHUNKING: 'semantic' })).toThrow(/CORTEX_CHUNKING_MODEL: .*needed when CORTEX_CHUNKING is semantic/);
    expect(() => readDocumentsSettings({ CORTEX_CHUNKING_MODEL: 'gpt-4' })).toThrow(/CORTEX_CHUNKING_MODEL: ollama:<model>, gemini:<model>, openai:<model> or anthropic:<model>/);
    expect(() => readDocumentsSettings({ CORTEX_VISION_MODEL: 'llava' })).toThrow(/CORTEX_VISION_MODEL: ollama:<model>, gemini:<model>, openai:<model> or anthropic:<model> \(got "llava"\)/);
    expect(() => readDocumentsSettings({ CORTEX_INDEX_AT_START: 'yes' })).toThrow(/CORTEX_INDEX_AT_START: 0 or 1/);
    expect(() => readDocumentsSettings({ CORTEX_BLOCK_PRIVATE_NETWORK: 'maybe' })).toThrow(/CORTEX_BLOCK_PRIVATE_NETWORK: true or false/);
    expect(() => readDocumentsSettings({ CORTEX_VECTOR_WEIGHT: 'Infinity' })).toThrow(/CORTEX_VECTOR_WEIGHT: a number from 0 to 10/);
    expect(() => readDocumentsSettings({ CORTEX_VECTOR_WEIGHT: '-1' })).toThrow(/CORTEX_VECTOR_WEIGHT/);
  });
});

describe('createLazyLibrary', () => {
  it('creates the library once, and retries a creation that failed', async () => {
    let attempts = 0;
    let closed = 0;
    const real: DocumentLibrary = {
      refresh: async () => ({ summary: null, notes: [] }),
      search: async ({ query }) => ({ text: `found ${query}`, hits: [], notes: [] }),
      close: () => void closed++,
    };
    const library = createLazyLibrary(async () => {
      attempts++;
      if (attempts === 1) throw new Error('model not ready');
      return real;
    });
    await expect(library.search({ query: 'x' })).rejects.toThrow('model not ready');
    expect((await library.search({ query: 'y' })).text).toBe('found y');
    await library.refresh();
    expect(attempts).toBe(2);
    library.close();
    expect(closed).toBe(1);
  });
});

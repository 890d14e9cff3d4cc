// Model embedders over a local fake Ollama server and the profile-to-embedder mapping.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ModelConfig } from '../../src/config/models.js';
import { ScriptedLlm } from '../helpers/scripted-llm.js';
import { openEmbedder } from '../../src/rag/embed/open-embedder.js';
import { createLlmEmbedder } from '../../src/rag/embed/llm-embedder.js';
import { embeddingFromEnv, embeddingFromProfile } from '../../src/rag/indexer-settings.js';
import { indexDocuments } from '../../src/rag/index/index-documents.js';
import { hybridSearch } from '../../src/rag/search/retrievers.js';
import { loadSearchIndex } from '../../src/rag/search/search-index.js';
import { type FakeLlmServer, type RecordedRequest, startFakeOllamaServer } from '../helpers/fake-ollama-server.js';
import { geminiBatchEmbedReply, startFakeGeminiServer } from '../helpers/fake-gemini-server.js';
import { FakeExtractor } from './fake-extractor.js';
import { makeTempFolders, type TempFolders } from './temp-folders.js';

/** A toy 3-dimensional "model": counts of a, e and o, so similar texts really get similar vectors. */
function toyVector(text: string): number[] {
  return ['a', 'e', 'o'].map((letter) => text.split(letter).length - 1 + 0.5);
}

let ollama: FakeLlmServer;
beforeEach(async () => {
  ollama = await startFakeOllamaServer({
    replies: (request: RecordedRequest) =>
      request.path === '/api/embed' ? { body: { model: request.body.model, embeddings: (request.body.input as string[]).map(toyVector) } } : undefined,
  });
});
afterEach(async () => {
  await ollama.close();
});

describe('model embedders', () => {
  it('embeds through Ollama /api/embed, learning the dimension from a probe', async () => {
    const embedder = await openEmbedder(embeddingFromEnv('ollama:all-minilm'), { OLLAMA_HOST: ollama.url });
    expect(embedder).toMatchObject({ id: 'ollama:all-minilm', dimension: 3 });
    expect(await embedder.embed(['aaa', 'eee'])).toEqual([toyVector('aaa'), toyVector('eee')]);
    expect(ollama.requests.filter((r) => r.path === '/api/embed').map((r) => r.body.model)).toEqual(['all-minilm', 'all-minilm']);
  });

  it('indexes and searches with the model, recording its id in the index', async () => {
    const folders: TempFolders = await makeTempFolders();
    try {
      await folders.write('a.md', 'banana cabana');
      await folders.write('o.md', 'Oslo motor pool');
      const embedder = await openEmbedder(embeddingFromEnv('ollama:all-minilm'), { OLLAMA_HOST: ollama.url });
      await indexDocuments({ documentsDir: folders.documentsDir, indexDir: folders.indexDir, embedder, extractor: new FakeExtractor(folders.documentsDir) });
      const index = (await loadSearchIndex(folders.indexDir))!;
      expect(index.model).toBe('ollama:all-minilm');
      expect((await hybridSearch(index, embedder, 'banana', 1))[0]?.doc).toBe('a.md');
    } finally {
      await folders.remove();
    }
  });

  it('gives a model trained with task prefixes its own: passages when indexing, the query when searching', async () => {
    const folders: TempFolders = await makeTempFolders();
    try {
      await folders.write('a.md', 'banana cabana');
      const embedder = await openEmbedder(embeddingFromEnv('ollama:nomic-embed-text'), { OLLAMA_HOST: ollama.url });
      await indexDocuments({ documentsDir: folders.documentsDir, indexDir: folders.indexDir, embedder, extractor: new FakeExtractor(folders.documentsDir) });
      const index = (await loadSearchIndex(folders.indexDir))!;
      // Its id says so, so an index made without the prefixes is rebuilt rather than searched with mixed vectors.
      expect(index.model).toBe('ollama:nomic-embed-text+task-prefixes');
      const before = ollama.requests.length;
      await hybridSearch(index, embedder, 'banana', 1);
      /** The texts sent to /api/embed by the requests from index `from` to `to`. */
      const inputs = (from: number, to?: number) => ollama.requests.slice(from, to).filter((r) => r.path === '/api/embed').flatMap((r) => r.body.input as string[]);
      expect(inputs(0, before).filter((t) => t.includes('banana'))).toEqual(['search_document: banana cabana']);
      expect(inputs(before)).toEqual(['search_query: banana']);
      // mxbai-embed-large puts its instruction before queries only.
      const mxbai = await openEmbedder(embeddingFromEnv('ollama:mxbai-embed-large:335m'), { OLLAMA_HOST: ollama.url });
      const start = ollama.requests.length;
      await mxbai.embed(['a passage']);
      await mxbai.embed(['a question'], 'query');
      expect(inputs(start).slice(-2)).toEqual(['a passage', 'Represent this sentence for searching relevant passages: a question']);
    } finally {
      await folders.remove();
    }
  });

  it('tells a Gemini model the task of its texts, and says so in its id', async () => {
    const gemini = await startFakeGeminiServer({ replies: (r) => geminiBatchEmbedReply((r.body.requests as unknown[]).map(() => [1, 2])) });
    try {
      const entry: ModelConfig = { type: 'gemini', model: 'gemini-flash-latest', embedding_model: 'gemini-embedding-001', base_url: gemini.url, timeout_ms: 5_000, max_retries: 0 };
      const embedder = await openEmbedder(embeddingFromProfile('cloud', { cloud: entry }), { GEMINI_API_KEY: 'k' });
      expect(embedder.id).toBe('gemini:gemini-embedding-001+task-types');
      const start = gemini.requests.length;
      await embedder.embed(['a passage']);
      await embedder.embed(['a question'], 'query');
      const taskTypes = gemini.requests.slice(start).map((r) => (r.body.requests as Array<{ taskType?: string }>)[0]!.taskType);
      expect(taskTypes).toEqual(['RETRIEVAL_DOCUMENT', 'RETRIEVAL_QUERY']);
    } finally {
      await gemini.close();
    }
  });

  it('rejects answers with the wrong number or length of vectors', async () => {
    const llm = new ScriptedLlm({ embed: (texts) => texts.map((t) => (t === 'short' ? [1] : [1, 2])) });
    const embedder = await createLlmEmbedder({ llm, id: 'scripted:toy' });
    expect(embedder.dimension).toBe(2);
    await expect(embedder.embed(['short'])).rejects.toThrow(/scripted:toy: returned a vector of length 1, expected 2/);
    const none = new ScriptedLlm({ embed: () => [] });
    await expect(createLlmEmbedder({ llm: none, id: 'scripted:none' })).rejects.toThrow(/returned 0 vectors for 1 texts/);
  });
});

describe('embeddingFromProfile', () => {
  const models: Record<string, ModelConfig> = {
    local: { type: 'ollama', model: 'qwen2.5-coder:7b', embedding_model: 'nomic-embed-text', base_url: 'http://127.0.0.1:1', timeout_ms: 5_000, max_retries: 0 },
    plain: { type: 'ollama', model: 'llama3', timeout_ms: 5_000, max_retries: 0 },
  };

  it('gives the built-in embedder for builtin and a model embedder for a models.yaml key', async () => {
    expect((await openEmbedder(embeddingFromProfile('builtin', models), {})).id).toMatch(/^builtin:lexical-/);
    const embedder = await openEmbedder(embeddingFromProfile('local', { local: { ...models.local!, base_url: ollama.url } }), {});
    expect(embedder.id).toBe('ollama:nomic-embed-text+task-prefixes');
  });

  it('names the key and the choices when the setting is unusable', async () => {
    expect(() => embeddingFromProfile('remote', models)).toThrow(/llm\.embedding: builtin or a key of models\.yaml \(local, plain\), got "remote"/);
    await expect(openEmbedder(embeddingFromProfile('plain', models), {})).rejects.toThrow(/needs an embedding_model/);
  });
});

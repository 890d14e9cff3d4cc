import { describe, expect, it } from 'vitest';
import type { ModelConfig } from '../../src/config/models.js';
import { ModelNotFoundError } from '../../src/errors.js';
import { checkTextModel, sameModel, textModels } from '../../src/llm/check-model.js';
import { createGeminiClient } from '../../src/llm/gemini-client.js';
import { createOllamaClient } from '../../src/llm/ollama-client.js';
import { resolveTextModel } from '../../src/llm/select.js';
import { ScriptedLlm } from '../helpers/scripted-llm.js';
import { geminiTextReply, startFakeGeminiServer } from '../helpers/fake-gemini-server.js';
import { startFakeOllamaServer } from '../helpers/fake-ollama-server.js';
import { fakeServers, instantRetries } from './llm-test-kit.js';

const fakeGemini = fakeServers(startFakeGeminiServer);
const fakeOllama = fakeServers(startFakeOllamaServer);
const gemini = (model: string, base_url: string): ModelConfig => ({ type: 'gemini', model, base_url, timeout_ms: 10_000, max_retries: 2 });
const ollama = (model: string, base_url: string): ModelConfig => ({ type: 'ollama', model, base_url, timeout_ms: 10_000, max_retries: 2 });

describe('checkTextModel', () => {
  it('passes a model Gemini lists, under its -latest alias', async () => {
    const server = await fakeGemini({ currentOnly: true });
    const check = await checkTextModel(createGeminiClient(gemini('gemini-flash-latest', server.url), { GEMINI_API_KEY: 'k' }));
    expect(check.ok).toBe(true);
  });

  it('refuses a shut-down Gemini model, naming the setting and the text models that exist', async () => {
    const server = await fakeGemini({ currentOnly: true });
    const client = createGeminiClient(gemini('gemini-2.0-flash', server.url), { GEMINI_API_KEY: 'k' }, undefined, {
      setting: 'models.gemini.model in config/models.yaml, or --model',
    });
    const check = await checkTextModel(client);
    expect(check.ok).toBe(false);
    const error = (check as { error: Error }).error;
    expect(error).toBeInstanceOf(ModelNotFoundError);
    expect(error.message).toContain('"gemini-2.0-flash" is not available');
    expect(error.message).toContain('models.gemini.model in config/models.yaml, or --model');
    expect(error.message).toContain('gemini-flash-latest');
    expect(error.message).not.toContain('gemini-embedding-001');
  });

  it('refuses an Ollama model that is not pulled and says how to pull it', async () => {
    const server = await fakeOllama({ models: ['llama3.1:8b', 'nomic-embed-text:latest'] });
    const check = await checkTextModel(createOllamaClient(ollama('qwen2.5-coder:7b', server.url), {}));
    expect(check.ok).toBe(false);
    const message = (check as { error: Error }).error.message;
    expect(message).toContain('ollama pull qwen2.5-coder:7b');
    expect(message).toContain('Available: llama3.1:8b.');
  });

  it('reports an Ollama that is not running as the error, at once', async () => {
    const closed = await startFakeOllamaServer();
    await closed.close();
    const tuning = instantRetries();
    const check = await checkTextModel(createOllamaClient(ollama('qwen2.5-coder:7b', closed.url), {}, tuning));
    expect(check.ok).toBe(false);
    expect((check as { error: Error }).error.message).toContain(`Ollama is not running at ${closed.url}`);
    expect(tuning.waits).toEqual([]);
  });

  it('ends a malformed Ollama model list with a clear message', async () => {
    const server = await fakeOllama({ replies: (r) => (r.path === '/api/tags' ? { body: { models: 'lots' } } : undefined) });
    const check = await checkTextModel(createOllamaClient(ollama('m', server.url), {}));
    expect((check as { error: Error }).error.message).toContain("is not in Ollama's format");
  });

  it('ends a huge Ollama model list at its byte limit with a clear message', async () => {
    const entry = JSON.stringify({ name: 'x'.repeat(200), model: 'x', size: 0, digest: '', details: {} });
    const frames = (function* () {
      yield '{"models":[';
      for (let i = 0; ; i++) yield `${i ? ',' : ''}${entry}`;
    })();
    const server = await fakeOllama({ replies: (r) => (r.path === '/api/tags' ? { frames } : undefined) });
    const check = await checkTextModel(createOllamaClient(ollama('m', server.url), {}, instantRetries()));
    expect(check.ok).toBe(false);
    expect((check as { error: Error }).error.message).toMatch(/passed 4 MB/);
  });

  it('ends a huge or malformed Gemini model list with a clear message', async () => {
    const many = Array.from({ length: 5_000 }, (_, i) => ({ name: `models/m-${i}`, supportedActions: ['generateContent'] }));
    const huge = await fakeGemini({ replies: (r) => (r.method === 'GET' && r.path.startsWith('/v1beta/models?') ? { body: { models: many, nextPageToken: 'more' } } : undefined) });
    const check = await checkTextModel(createGeminiClient(gemini('gemini-flash-latest', huge.url), { GEMINI_API_KEY: 'k' }));
    expect(check.ok).toBe(false);
    expect((check as { error: Error }).error.message).toContain('and 988 more');
    expect(huge.requests.filter((r) => r.method === 'GET')).toHaveLength(1);

    const bad = await fakeGemini({ replies: (r) => (r.method === 'GET' && r.path.startsWith('/v1beta/models?') ? { body: { models: 7 } } : undefined) });
    const badCheck = await checkTextModel(createGeminiClient(gemini('gemini-flash-latest', bad.url), { GEMINI_API_KEY: 'k' }));
    expect(badCheck.ok).toBe(false);
    expect((badCheck as { error: Error }).error.message).toMatch(/not in the Gemini API's format/);
  });

  it('passes clients without a provider (scripted, replay)', async () => {
    expect((await checkTextModel(new ScriptedLlm())).ok).toBe(true);
  });
});

describe('a 404 on generate', () => {
  it('names the setting and the models that exist, without retrying', async () => {
    const server = await fakeGemini({ currentOnly: true, replies: [geminiTextReply('never')] });
    const { client } = await resolveTextModel({
      setting: 'cloud',
      models: { cloud: gemini('gemini-2.0-flash', server.url) },
      modelsFile: 'config/models.yaml',
      env: { GEMINI_API_KEY: 'k' },
    });
    const error = await client.generate({ prompt: 'hi' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelNotFoundError);
    expect((error as Error).message).toContain('models.cloud.model in config/models.yaml, or --model');
    expect((error as Error).message).toContain('gemini-flash-latest');
    expect(server.requests.filter((r) => r.method === 'POST')).toHaveLength(0);
  });

  it('on Ollama, says to pull the model', async () => {
    const server = await fakeOllama({ strictModels: true, models: ['llama3.1:8b'] });
    const client = createOllamaClient(ollama('qwen2.5-coder:7b', server.url), {}, instantRetries());
    const error = await client.generate({ prompt: 'hi' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelNotFoundError);
    expect((error as Error).message).toContain('ollama pull qwen2.5-coder:7b');
    expect((error as Error).message).toContain('llama3.1:8b');
  });
});

describe('sameModel', () => {
  it('reads an Ollama name without a tag as :latest and a Gemini name without models/', () => {
    expect(sameModel('ollama', 'llama3.1:latest', 'llama3.1')).toBe(true);
    expect(sameModel('ollama', 'llama3.1:8b', 'llama3.1')).toBe(false);
    expect(sameModel('gemini', 'models/gemini-flash-latest', 'gemini-flash-latest')).toBe(true);
  });
});

describe('textModels', () => {
  it('leaves out an Ollama model whose family is an embedding one, whatever its name', async () => {
    const server = await fakeOllama({ models: ['llama3.1:8b', 'granite-retriever:30m'], families: { 'llama3.1:8b': ['llama'], 'granite-retriever:30m': ['bert'] } });
    const listed = await createOllamaClient(ollama('llama3.1:8b', server.url), {}).listModels();
    expect(listed).toEqual([
      { name: 'llama3.1:8b', families: ['llama'] },
      { name: 'granite-retriever:30m', families: ['bert'] },
    ]);
    expect(textModels(listed).map((m) => m.name)).toEqual(['llama3.1:8b']);
  });
});

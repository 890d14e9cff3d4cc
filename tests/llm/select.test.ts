import { afterEach, describe, expect, it } from 'vitest';
import type { ModelConfig } from '../../src/config/models.js';
import { ConfigError, LlmUnavailableError } from '../../src/errors.js';
import type { GeminiClient } from '../../src/llm/gemini-client.js';
import type { OllamaClient } from '../../src/llm/ollama-client.js';
import { DEFAULT_GEMINI_MODEL, createLlmClient, probeOllama, resolveTextModel } from '../../src/llm/select.js';
import { ollamaChatReply, startFakeOllamaServer, type FakeLlmServer } from '../helpers/fake-ollama-server.js';

const servers: FakeLlmServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function fakeOllama(...args: Parameters<typeof startFakeOllamaServer>): Promise<FakeLlmServer> {
  const server = await startFakeOllamaServer(...args);
  servers.push(server);
  return server;
}

/** A URL where nothing listens: a fake server's, once it has closed. */
async function closedUrl(): Promise<string> {
  const server = await startFakeOllamaServer();
  await server.close();
  return server.url;
}

const defaults = { timeout_ms: 10_000, max_retries: 0 };
const MODELS: Record<string, ModelConfig> = {
  local: { type: 'ollama', model: 'llama-test', ...defaults },
  cloud: { type: 'gemini', model: 'gemini-test', ...defaults },
  cloud2: { type: 'gemini', model: 'gemini-other', ...defaults },
};
const MODELS_FILE = 'config/models.yaml';
const neverProbed = async (host: string): Promise<boolean> => {
  throw new Error(`unexpected Ollama probe of ${host}`);
};

describe('createLlmClient', () => {
  it('creates the client the entry type names', () => {
    expect(createLlmClient(MODELS.local!, {}).provider).toBe('ollama');
    expect(createLlmClient(MODELS.cloud!, { GEMINI_API_KEY: 'k' }).provider).toBe('gemini');
  });
});

describe('resolveTextModel', () => {
  it('uses the models.yaml entry a key names', async () => {
    const { key, client } = await resolveTextModel({
      setting: 'local',
      models: MODELS,
      modelsFile: MODELS_FILE,
      env: { GEMINI_API_KEY: 'k' },
      probeOllama: neverProbed,
    });
    expect(key).toBe('local');
    expect(client).toMatchObject({ provider: 'ollama', model: 'llama-test' });
  });

  it('names the models file and the key when the key is not defined', async () => {
    const error = await resolveTextModel({ setting: 'nope', models: MODELS, modelsFile: MODELS_FILE, env: {} }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ConfigError);
    expect(error).toMatchObject({ file: MODELS_FILE, key: 'models.nope' });
    expect((error as Error).message).toMatch(/local, cloud, cloud2/);
  });

  it('auto: picks the first gemini entry when GEMINI_API_KEY is set, without probing Ollama', async () => {
    const { key, client } = await resolveTextModel({
      setting: 'auto',
      models: MODELS,
      modelsFile: MODELS_FILE,
      env: { GEMINI_API_KEY: 'k' },
      probeOllama: neverProbed,
    });
    expect(key).toBe('cloud');
    expect(client).toMatchObject({ provider: 'gemini', model: 'gemini-test', keySource: 'GEMINI_API_KEY' });
  });

  it('auto: uses the built-in Gemini model when GOOGLE_API_KEY is set and models.yaml has no gemini entry', async () => {
    const { key, client } = await resolveTextModel({
      setting: 'auto',
      models: { local: MODELS.local! },
      modelsFile: MODELS_FILE,
      env: { GOOGLE_API_KEY: 'k' },
      probeOllama: neverProbed,
    });
    expect(key).toBe(DEFAULT_GEMINI_MODEL.model);
    expect((client as GeminiClient).keySource).toBe('GOOGLE_API_KEY');
    expect(client.model).toBe('gemini-flash-latest');
  });

  it('auto: picks Ollama when no key is set and Ollama answers at OLLAMA_HOST', async () => {
    const server = await fakeOllama({ models: ['llama-test:latest'], replies: [ollamaChatReply('from ollama')] });
    const { key, client, note } = await resolveTextModel({
      setting: 'auto',
      models: MODELS,
      modelsFile: MODELS_FILE,
      env: { OLLAMA_HOST: `127.0.0.1:${server.port}` },
    });
    expect(key).toBe('local');
    expect(note).toBeUndefined();
    expect((client as OllamaClient).host).toBe(server.url);
    expect(server.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /api/version', 'GET /api/tags']);
    expect((await client.generate({ prompt: 'hi' })).text).toBe('from ollama');
  });

  it('auto: fails with one sentence on setting up either when there is no key and no Ollama', async () => {
    const url = await closedUrl();
    const error = await resolveTextModel({ setting: 'auto', models: MODELS, modelsFile: MODELS_FILE, env: { OLLAMA_HOST: url } }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(LlmUnavailableError);
    const message = (error as Error).message;
    expect(message).toContain('export GEMINI_API_KEY=');
    expect(message).toContain('ollama pull llama-test');
    expect(message).toContain('ollama serve');
    expect(message).toContain('OLLAMA_HOST');
    expect(message).toContain(url);
    expect(message.split(/[.!?]\s/)).toHaveLength(1);
  });
});

describe('probeOllama', () => {
  it('is true when /api/version answers', async () => {
    const server = await fakeOllama();
    expect(await probeOllama(server.url)).toBe(true);
  });

  it('is false when nothing listens', async () => {
    expect(await probeOllama(await closedUrl())).toBe(false);
  });

  it('is false when the server does not answer in time', async () => {
    const server = await fakeOllama({ replies: (r) => (r.path === '/api/version' ? { hang: true } : undefined) });
    expect(await probeOllama(server.url, 100)).toBe(false);
  });
});

describe('resolveTextModel: any provider model by name', () => {
  it('takes ollama:NAME on the first ollama entry, keeping its host and limits', async () => {
    const { key, client } = await resolveTextModel({ setting: 'ollama:llama3.1:8b', models: MODELS, modelsFile: MODELS_FILE, env: {}, probeOllama: neverProbed });
    expect(key).toBe('ollama:llama3.1:8b');
    expect(client.provider).toBe('ollama');
    expect(client.model).toBe('llama3.1:8b');
  });

  it('takes gemini:NAME and a bare gemini-… name on the gemini entry', async () => {
    const env = { GEMINI_API_KEY: 'k' };
    const prefixed = await resolveTextModel({ setting: 'gemini:gemini-3.8-flash', models: MODELS, modelsFile: MODELS_FILE, env, probeOllama: neverProbed });
    expect([prefixed.client.provider, prefixed.client.model]).toEqual(['gemini', 'gemini-3.8-flash']);
    const bare = await resolveTextModel({ setting: 'gemini-2.5-pro', models: MODELS, modelsFile: MODELS_FILE, env, probeOllama: neverProbed });
    expect([bare.client.provider, bare.client.model]).toEqual(['gemini', 'gemini-2.5-pro']);
  });

  it('reads a bare name with a tag as an Ollama model, on the built-in default when models.yaml has no ollama entry', async () => {
    const { client } = await resolveTextModel({ setting: 'llama3.1:8b', models: {}, modelsFile: MODELS_FILE, env: {}, probeOllama: neverProbed });
    expect([client.provider, client.model, (client as OllamaClient).host]).toEqual(['ollama', 'llama3.1:8b', 'http://127.0.0.1:11434']);
  });

  it('names the keys and the provider:model form for a word that is neither', async () => {
    const error = await resolveTextModel({ setting: 'olama', models: MODELS, modelsFile: MODELS_FILE, env: {}, probeOllama: neverProbed }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain('local, cloud, cloud2');
    expect((error as Error).message).toContain('ollama:llama3.1:8b');
  });

  it('auto: falls back to a pulled model when the default is not pulled, and says which and why', async () => {
    const server = await fakeOllama({ models: ['nomic-embed-text:latest', 'mistral:7b', 'deepseek-coder:6.7b'] });
    const { key, client, note } = await resolveTextModel({ setting: 'auto', models: MODELS, modelsFile: MODELS_FILE, env: { OLLAMA_HOST: server.url } });
    expect(key).toBe('ollama:deepseek-coder:6.7b');
    expect(client.model).toBe('deepseek-coder:6.7b');
    expect(note).toContain('llama-test is not pulled');
    expect(note).toContain('deepseek-coder:6.7b');
    expect(note).toContain('ollama pull llama-test');
  });
});

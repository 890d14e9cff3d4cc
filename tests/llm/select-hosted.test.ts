// Choosing OpenAI-compatible and Anthropic models: provider:model, auto's order, cortex models.
import { describe, expect, it } from 'vitest';
import type { ModelConfig } from '../../src/config/models.js';
import type { AnthropicClient } from '../../src/llm/anthropic-client.js';
import { listProviderModels } from '../../src/llm/list-provider-models.js';
import type { OpenAiClient } from '../../src/llm/openai-client.js';
import { DEFAULT_OPENAI_MODEL, createLlmClient, resolveTextModel } from '../../src/llm/select.js';
import { startFakeAnthropicServer } from '../helpers/fake-anthropic-server.js';
import { startFakeOpenAiServer } from '../helpers/fake-openai-server.js';
import { fakeServers } from './llm-test-kit.js';

const openAi = fakeServers(startFakeOpenAiServer);
const anthropic = fakeServers(startFakeAnthropicServer);
const MODELS_FILE = 'config/models.yaml';
const notRunning = async (): Promise<boolean> => false;

describe('choosing an OpenAI-compatible or Anthropic model', () => {
  it('creates the client the entry type names', () => {
    const defaults = { timeout_ms: 10_000, max_retries: 0 };
    expect(createLlmClient({ type: 'openai', model: 'm', base_url: 'http://127.0.0.1:1/v1', ...defaults }, {}).provider).toBe('openai');
    expect(createLlmClient({ type: 'anthropic', model: 'm', ...defaults }, { ANTHROPIC_API_KEY: 'k' }).provider).toBe('anthropic');
  });

  it('takes openai:NAME and anthropic:NAME with the ecosystem variables and no models.yaml entry', async () => {
    const env = { OPENAI_BASE_URL: 'http://127.0.0.1:1234/v1', ANTHROPIC_API_KEY: 'k' };
    const openai = await resolveTextModel({ setting: 'openai:gpt-4.1-mini', models: {}, modelsFile: MODELS_FILE, env });
    expect(openai.key).toBe('openai:gpt-4.1-mini');
    expect(openai.client).toMatchObject({ provider: 'openai', model: 'gpt-4.1-mini', baseUrl: 'http://127.0.0.1:1234/v1' });
    const claude = await resolveTextModel({ setting: 'anthropic:claude-haiku-5-5', models: {}, modelsFile: MODELS_FILE, env });
    expect(claude.client).toMatchObject({ provider: 'anthropic', model: 'claude-haiku-5-5', keySource: 'ANTHROPIC_API_KEY' });
    const bare = await resolveTextModel({ setting: 'claude-opus-4-1', models: {}, modelsFile: MODELS_FILE, env });
    expect(bare.client.provider).toBe('anthropic');
  });

  it('keeps an openai entry’s settings when --model names another of its models', async () => {
    const models: Record<string, ModelConfig> = { lms: { type: 'openai', model: 'a', base_url: 'http://127.0.0.1:1234/v1', timeout_ms: 9_000, max_retries: 1 } };
    const { client } = await resolveTextModel({ setting: 'openai:b', models, modelsFile: MODELS_FILE, env: {} });
    expect((client as OpenAiClient).baseUrl).toBe('http://127.0.0.1:1234/v1');
    expect(client.model).toBe('b');
  });

  it('auto: Gemini first, then Anthropic, then an OpenAI-compatible server, then Ollama', async () => {
    const claude = await anthropic({ models: ['claude-sonnet-5-5', 'claude-haiku-5-5'] });
    const local = await openAi({ models: ['nomic-embed-text-v1.5', 'qwen2.5-coder-7b-instruct', 'llama-3.2-3b'] });
    const both = { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: claude.url, OPENAI_BASE_URL: `${local.url}/v1` };
    const pick = (env: NodeJS.ProcessEnv) => resolveTextModel({ setting: 'auto', models: {}, modelsFile: MODELS_FILE, env, probeOllama: notRunning });

    expect((await pick({ ...both, GEMINI_API_KEY: 'g' })).client.provider).toBe('gemini');
    const chosen = await pick(both);
    expect(chosen.key).toBe('anthropic:claude-sonnet-5-5');
    expect((chosen.client as AnthropicClient).baseUrl).toBe(claude.url);
    // A local server's model list says what it serves: a coding model first, never an embedding model.
    expect((await pick({ OPENAI_BASE_URL: `${local.url}/v1` })).key).toBe('openai:qwen2.5-coder-7b-instruct');
    expect((await pick({ OPENAI_API_KEY: 'sk' })).key).toBe(`openai:${DEFAULT_OPENAI_MODEL.model}`);
    await expect(pick({})).rejects.toThrow(/GEMINI_API_KEY.*ANTHROPIC_API_KEY, OPENAI_API_KEY, or OPENAI_BASE_URL/);
  });

  it('auto skips an OpenAI-compatible server that does not answer', async () => {
    const gone = await openAi();
    await gone.close();
    const error = await resolveTextModel({ setting: 'auto', models: {}, modelsFile: MODELS_FILE, env: { OPENAI_BASE_URL: `${gone.url}/v1` }, probeOllama: notRunning }).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/No LLM is available/);
  });

  it('cortex models lists what the OpenAI-compatible server and Anthropic serve, and says which variable is missing', async () => {
    const claude = await anthropic({ models: ['claude-sonnet-5-5'] });
    const local = await openAi({ models: ['llama-3.2-3b'] });
    const env = { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: claude.url, OPENAI_BASE_URL: `${local.url}/v1`, OLLAMA_HOST: 'http://127.0.0.1:9' };
    const report = await listProviderModels({ setting: 'openai:llama-3.2-3b', models: {}, modelsFile: MODELS_FILE, env });
    const by = (provider: string) => report.providers.find((p) => p.provider === provider);
    expect(by('anthropic')).toMatchObject({ status: 'listed', endpoint: claude.url, models: [{ name: 'claude-sonnet-5-5' }] });
    expect(by('openai')).toMatchObject({ status: 'listed', endpoint: `${local.url}/v1`, models: [{ name: 'llama-3.2-3b' }] });
    expect(report.default).toEqual({ provider: 'openai', model: 'llama-3.2-3b' });
    expect(report.auto).toMatchObject({ provider: 'anthropic', model: 'claude-sonnet-5-5' });

    const none = await listProviderModels({ setting: 'auto', models: {}, modelsFile: MODELS_FILE, env: { OLLAMA_HOST: 'http://127.0.0.1:9' } });
    expect(none.providers.find((p) => p.provider === 'openai')).toMatchObject({ status: 'no_key', message: expect.stringContaining('OPENAI_BASE_URL') });
    expect(none.providers.find((p) => p.provider === 'anthropic')).toMatchObject({ status: 'no_key', message: expect.stringContaining('ANTHROPIC_API_KEY') });
  });
});

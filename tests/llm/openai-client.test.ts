// The OpenAI-compatible client through the real SDK against a local server speaking chat completions.
import { describe, expect, it } from 'vitest';
import type { ModelConfig } from '../../src/config/models.js';
import { LlmRequestError, LlmUnavailableError, ModelNotFoundError } from '../../src/errors.js';
import { createOpenAiClient } from '../../src/llm/openai-client.js';
import type { LlmProgress } from '../../src/llm/types.js';
import { openAiChatReply, openAiChats, openAiEmbedReply, openAiError, startFakeOpenAiServer } from '../helpers/fake-openai-server.js';
import { fakeServers, instantRetries } from './llm-test-kit.js';

const fake = fakeServers(startFakeOpenAiServer);

function modelConfig(overrides: Partial<ModelConfig> = {}): ModelConfig {
  return { type: 'openai', model: 'fake-gpt', embedding_model: 'fake-embed', timeout_ms: 10_000, max_retries: 3, ...overrides };
}

describe('createOpenAiClient', () => {
  it('streams the reply as text progress with the key as a bearer token and counts the usage', async () => {
    const server = await fake({ apiKey: 'sk-test', replies: [openAiChatReply('The answer is 42.', { promptTokens: 30, completionTokens: 9 })] });
    const client = createOpenAiClient(modelConfig(), { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: `${server.url}/v1` });
    const progress: LlmProgress[] = [];

    const result = await client.generate({ prompt: 'What is it?', system: 'Be brief.', temperature: 0, onProgress: (p) => progress.push(p) });

    expect(result).toMatchObject({ text: 'The answer is 42.', model: 'fake-gpt', usage: { promptTokens: 30, completionTokens: 9 } });
    expect(result.hitOutputLimit).toBeUndefined();
    const texts = progress.filter((p) => p.kind === 'text');
    expect(texts.length).toBeGreaterThan(1);
    expect(texts.map((p) => p.delta).join('')).toBe('The answer is 42.');
    const [request] = openAiChats(server);
    expect(request!.headers.authorization).toBe('Bearer sk-test');
    expect(request!.body).toEqual({
      model: 'fake-gpt',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'What is it?' },
      ],
      stream: true,
      stream_options: { include_usage: true },
      temperature: 0,
    });
    expect(client.keySource).toBe('OPENAI_API_KEY');
  });

  it('asks for structured output with a json_schema response format and caps the answer with max_tokens', async () => {
    const server = await fake({ replies: [openAiChatReply('{"intent":"sum"}')] });
    const client = createOpenAiClient(modelConfig({ base_url: `${server.url}/v1` }), {});
    const schema = { type: 'object', properties: { intent: { type: 'string' } }, required: ['intent'] };
    expect((await client.generate({ prompt: 'Sum it', jsonSchema: schema, maxOutputTokens: 200 })).text).toBe('{"intent":"sum"}');
    expect(openAiChats(server)[0]!.body).toMatchObject({
      response_format: { type: 'json_schema', json_schema: { name: 'answer', schema } },
      max_tokens: 200,
    });
  });

  it('sends images as data URLs after the prompt', async () => {
    const server = await fake({ replies: [openAiChatReply('A chart.')] });
    const client = createOpenAiClient(modelConfig({ base_url: `${server.url}/v1` }), {});
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47]);
    await client.generate({ prompt: 'Describe it.', images: [{ mimeType: 'image/png', data: png }] });
    expect(openAiChats(server)[0]!.body.messages[0].content).toEqual([
      { type: 'text', text: 'Describe it.' },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${png.toString('base64')}` } },
    ]);
  });

  it('says when the reply stopped at the output limit', async () => {
    const server = await fake({ replies: [openAiChatReply('```js\nasync function solve() {', { finishReason: 'length' })] });
    const client = createOpenAiClient(modelConfig({ base_url: `${server.url}/v1` }), {});
    expect((await client.generate({ prompt: 'plan' })).hitOutputLimit).toBe(true);
  });

  it('refuses to use OpenAI itself without a key, naming the variables', () => {
    expect(() => createOpenAiClient(modelConfig(), {})).toThrow(LlmUnavailableError);
    expect(() => createOpenAiClient(modelConfig(), {})).toThrow(/OPENAI_API_KEY=<key>.*OPENAI_BASE_URL/);
    expect(() => createOpenAiClient(modelConfig({ api_key_env: 'TEAM_KEY' }), {})).toThrow(/looked in TEAM_KEY, OPENAI_API_KEY\)/);
  });

  it('points at the key variable when the server rejects it, never shows the key, and does not retry', async () => {
    const server = await fake({ apiKey: 'sk-right', replies: [openAiChatReply('never')] });
    const client = createOpenAiClient(modelConfig({ base_url: `${server.url}/v1`, api_key_env: 'MY_KEY' }), { MY_KEY: 'sk-wrong-secret' }, instantRetries());
    const error = await client.generate({ prompt: 'hi' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LlmRequestError);
    expect(error).toMatchObject({ status: 401 });
    expect((error as Error).message).toMatch(/Incorrect API key.*check the key in MY_KEY/);
    expect((error as Error).message).not.toContain('sk-wrong-secret');
    expect(openAiChats(server)).toHaveLength(1);
  });

  it('names the models the server has when the model does not exist', async () => {
    const server = await fake({ models: ['gpt-4.1-mini', 'gpt-4.1', 'text-embedding-3-small'], strictModels: true });
    const client = createOpenAiClient(modelConfig({ model: 'gpt-9', base_url: `${server.url}/v1` }), { OPENAI_API_KEY: 'k' }, instantRetries(), { setting: '--model' });
    const error = await client.generate({ prompt: 'hi' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelNotFoundError);
    expect((error as Error).message).toBe('openai: model "gpt-9" is not available. Change --model. Available: gpt-4.1-mini, gpt-4.1, text-embedding-3-small.');
  });

  it('points at the base URL when the server has no such path', async () => {
    const missing = await fake({ replies: [openAiError(404, 'Not Found')] });
    const wrong = createOpenAiClient(modelConfig({ base_url: `${missing.url}/v1` }), {}, instantRetries());
    expect(((await wrong.generate({ prompt: 'hi' }).catch((e: unknown) => e)) as Error).message).toContain('check OPENAI_BASE_URL / base_url in models.yaml: OpenAI-compatible servers usually end in /v1');
  });

  it('waits as long as a 429 retry-after asks, then answers', async () => {
    const server = await fake({ replies: [openAiError(429, 'Rate limit reached for requests', { headers: { 'retry-after': '2' } }), openAiChatReply('ok')] });
    const tuning = instantRetries();
    const client = createOpenAiClient(modelConfig({ base_url: `${server.url}/v1` }), {}, tuning);
    const progress: LlmProgress[] = [];
    expect((await client.generate({ prompt: 'hi', onProgress: (p) => progress.push(p) })).text).toBe('ok');
    expect(tuning.waits).toEqual([2_000]);
    expect(progress.find((p) => p.kind === 'retry')).toMatchObject({ reason: 'rate limited', delayMs: 2_000 });
  });

  it('says the prompt is longer than the context, with the server’s words, without retrying', async () => {
    const message = "This model's maximum context length is 8192 tokens. However, your messages resulted in 12000 tokens.";
    const server = await fake({ replies: [openAiError(400, message, { code: 'context_length_exceeded' })] });
    const client = createOpenAiClient(modelConfig({ base_url: `${server.url}/v1` }), {}, instantRetries());
    const error = await client.generate({ prompt: 'long' }).catch((e: unknown) => e);
    expect((error as Error).message).toContain('the prompt is longer than fake-gpt reads');
    expect((error as Error).message).toContain('maximum context length is 8192 tokens');
    expect(openAiChats(server)).toHaveLength(1);
  });

  it('lists the models of /v1/models', async () => {
    const server = await fake({ models: ['qwen2.5-coder-7b-instruct', 'nomic-embed-text-v1.5'] });
    const client = createOpenAiClient(modelConfig({ base_url: `${server.url}/v1` }), {});
    expect(await client.listModels()).toEqual([{ name: 'qwen2.5-coder-7b-instruct' }, { name: 'nomic-embed-text-v1.5' }]);
  });

  it('embeds texts through /v1/embeddings with the embedding model', async () => {
    const server = await fake({ replies: [openAiEmbedReply([[1, 0], [0, 1]])] });
    const client = createOpenAiClient(modelConfig({ base_url: `${server.url}/v1` }), {});
    const result = await client.embed(['a', 'b']);
    expect(result).toMatchObject({ vectors: [[1, 0], [0, 1]], model: 'fake-embed' });
    expect(server.requests.at(-1)!.body).toMatchObject({ model: 'fake-embed', input: ['a', 'b'] });
  });
});

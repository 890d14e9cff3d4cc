// The Anthropic client through the real SDK against a local server speaking the Messages wire format.
import { describe, expect, it } from 'vitest';
import type { ModelConfig } from '../../src/config/models.js';
import { LlmRequestError, LlmUnavailableError, ModelNotFoundError } from '../../src/errors.js';
import { ANTHROPIC_DEFAULT_MAX_TOKENS, createAnthropicClient } from '../../src/llm/anthropic-client.js';
import type { LlmProgress } from '../../src/llm/types.js';
import {
  anthropicError,
  anthropicKeySent,
  anthropicMessages,
  anthropicTextReply,
  anthropicToolReply,
  startFakeAnthropicServer,
} from '../helpers/fake-anthropic-server.js';
import { fakeServers, instantRetries } from './llm-test-kit.js';

const fake = fakeServers(startFakeAnthropicServer);

function modelConfig(overrides: Partial<ModelConfig> = {}): ModelConfig {
  return { type: 'anthropic', model: 'claude-fake', timeout_ms: 10_000, max_retries: 3, ...overrides };
}

describe('createAnthropicClient', () => {
  it('streams the reply as text progress with the key sent and counts the usage', async () => {
    const server = await fake({ apiKey: 'ant-test', replies: [anthropicTextReply('The answer is 42.', { inputTokens: 40, outputTokens: 12 })] });
    const client = createAnthropicClient(modelConfig(), { ANTHROPIC_API_KEY: 'ant-test', ANTHROPIC_BASE_URL: server.url });
    const progress: LlmProgress[] = [];

    const result = await client.generate({ prompt: 'What is it?', system: 'Be brief.', temperature: 0, onProgress: (p) => progress.push(p) });

    expect(result).toMatchObject({ text: 'The answer is 42.', model: 'claude-fake', usage: { promptTokens: 40, completionTokens: 12 } });
    const texts = progress.filter((p) => p.kind === 'text');
    expect(texts.length).toBeGreaterThan(1);
    expect(texts.map((p) => p.delta).join('')).toBe('The answer is 42.');
    const [request] = anthropicMessages(server);
    expect(anthropicKeySent(request!)).toBe('ant-test');
    expect(request!.headers['anthropic-version']).toBeTruthy();
    expect(request!.body).toEqual({
      model: 'claude-fake',
      max_tokens: ANTHROPIC_DEFAULT_MAX_TOKENS,
      messages: [{ role: 'user', content: 'What is it?' }],
      stream: true,
      system: 'Be brief.',
      temperature: 0,
    });
  });

  it('gets structured output through a forced tool whose input is the JSON', async () => {
    const server = await fake({ replies: [anthropicToolReply({ intent: 'sum', servers: ['math'] })] });
    const client = createAnthropicClient(modelConfig({ max_output_tokens: 1_000 }), { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: server.url });
    const schema = { type: 'object', properties: { intent: { type: 'string' }, servers: { type: 'array', items: { type: 'string' } } } };
    const result = await client.generate({ prompt: 'Which servers?', jsonSchema: schema });
    expect(JSON.parse(result.text)).toEqual({ intent: 'sum', servers: ['math'] });
    expect(anthropicMessages(server)[0]!.body).toMatchObject({
      max_tokens: 1_000,
      tools: [{ name: 'answer', input_schema: schema }],
      tool_choice: { type: 'tool', name: 'answer' },
    });
  });

  it('sends images as base64 blocks before the prompt', async () => {
    const server = await fake({ replies: [anthropicTextReply('A chart.')] });
    const client = createAnthropicClient(modelConfig({ base_url: server.url }), { ANTHROPIC_API_KEY: 'k' });
    const jpeg = Buffer.from([0xff, 0xd8, 0xff, 1]);
    await client.generate({ prompt: 'Describe it.', images: [{ mimeType: 'image/jpeg', data: jpeg }] });
    expect(anthropicMessages(server)[0]!.body.messages[0].content).toEqual([
      { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: jpeg.toString('base64') } },
      { type: 'text', text: 'Describe it.' },
    ]);
  });

  it('says when the reply stopped at max_tokens', async () => {
    const server = await fake({ replies: [anthropicTextReply('```js\nasync function solve() {', { stopReason: 'max_tokens' })] });
    const client = createAnthropicClient(modelConfig({ base_url: server.url }), { ANTHROPIC_API_KEY: 'k' });
    expect((await client.generate({ prompt: 'plan' })).hitOutputLimit).toBe(true);
  });

  it('refuses to start without a key, naming the variable', () => {
    expect(() => createAnthropicClient(modelConfig(), {})).toThrow(LlmUnavailableError);
    expect(() => createAnthropicClient(modelConfig(), {})).toThrow(/export ANTHROPIC_API_KEY=<key>/);
    expect(() => createAnthropicClient(modelConfig({ api_key_env: 'TEAM_KEY' }), { TEAM_KEY: ' ' })).toThrow(/looked in TEAM_KEY, ANTHROPIC_API_KEY;/);
  });

  it('points at the key variable when the API rejects it, without retrying', async () => {
    const server = await fake({ apiKey: 'right', replies: [anthropicTextReply('never')] });
    const client = createAnthropicClient(modelConfig({ base_url: server.url }), { ANTHROPIC_API_KEY: 'wrong-key-value' }, instantRetries());
    const error = await client.generate({ prompt: 'hi' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LlmRequestError);
    expect(error).toMatchObject({ status: 401 });
    expect((error as Error).message).toMatch(/invalid x-api-key.*check the key in ANTHROPIC_API_KEY/);
    expect((error as Error).message).not.toContain('wrong-key-value');
    expect(anthropicMessages(server)).toHaveLength(1);
  });

  it('names the models Anthropic serves when the model does not exist', async () => {
    const server = await fake({ models: ['claude-sonnet-5-5', 'claude-haiku-5-5'], strictModels: true });
    const client = createAnthropicClient(modelConfig({ model: 'claude-2', base_url: server.url }), { ANTHROPIC_API_KEY: 'k' }, instantRetries(), { setting: '--model' });
    const error = await client.generate({ prompt: 'hi' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelNotFoundError);
    expect((error as Error).message).toBe('anthropic: model "claude-2" is not available. Change --model. Available: claude-sonnet-5-5, claude-haiku-5-5.');
  });

  it('waits as long as a 429 retry-after asks, then answers', async () => {
    const server = await fake({ replies: [anthropicError(429, 'Number of request tokens has exceeded your rate limit', 'rate_limit_error', { 'retry-after': '3' }), anthropicTextReply('ok')] });
    const tuning = instantRetries();
    const client = createAnthropicClient(modelConfig({ base_url: server.url }), { ANTHROPIC_API_KEY: 'k' }, tuning);
    expect((await client.generate({ prompt: 'hi' })).text).toBe('ok');
    expect(tuning.waits).toEqual([3_000]);
  });

  it('says the prompt is longer than the context, with the server’s words', async () => {
    const server = await fake({ replies: [anthropicError(400, 'prompt is too long: 210000 tokens > 200000 maximum')] });
    const client = createAnthropicClient(modelConfig({ base_url: server.url }), { ANTHROPIC_API_KEY: 'k' }, instantRetries());
    const error = await client.generate({ prompt: 'long' }).catch((e: unknown) => e);
    expect((error as Error).message).toContain('the prompt is longer than claude-fake reads (prompt is too long: 210000 tokens > 200000 maximum)');
  });

  it('lists the models of /v1/models with their input windows', async () => {
    const server = await fake({ models: ['claude-sonnet-5-5', 'claude-haiku-5-5'] });
    const client = createAnthropicClient(modelConfig({ base_url: server.url }), { ANTHROPIC_API_KEY: 'k' });
    expect(await client.listModels()).toEqual([
      { name: 'claude-sonnet-5-5', inputTokens: 200_000 },
      { name: 'claude-haiku-5-5', inputTokens: 200_000 },
    ]);
  });

  it('says Anthropic has no embedding models', async () => {
    const client = createAnthropicClient(modelConfig(), { ANTHROPIC_API_KEY: 'k' });
    await expect(client.embed(['a'])).rejects.toThrow(/no embedding models.*builtin/);
  });
});

import { describe, expect, it } from 'vitest';
import type { ModelConfig } from '../../src/config/models.js';
import { LlmRequestError, LlmUnavailableError } from '../../src/errors.js';
import { GEMINI_EMBED_BATCH_MAX, createGeminiClient, findGeminiKey } from '../../src/llm/gemini-client.js';
import {
  geminiBatchEmbedReply,
  geminiError,
  geminiRoute,
  geminiTextReply,
  startFakeGeminiServer,
} from '../helpers/fake-gemini-server.js';
import type { FakeLlmServer } from '../helpers/fake-ollama-server.js';
import { fakeServers, instantRetries } from './llm-test-kit.js';

/** The generateContent requests (streamed or not) a fake received; models.get look-ups left out. */
const generations = (server: FakeLlmServer) => server.requests.filter((r) => geminiRoute(r)?.method === 'generateContent');

const fake = fakeServers(startFakeGeminiServer);

function modelConfig(overrides: Partial<ModelConfig> = {}): ModelConfig {
  return { type: 'gemini', model: 'gemini-test', embedding_model: 'embed-test', timeout_ms: 10_000, max_retries: 3, ...overrides };
}

describe('findGeminiKey', () => {
  it('takes api_key_env first, then GEMINI_API_KEY, then GOOGLE_API_KEY', () => {
    const env = { MY_KEY: 'm', GEMINI_API_KEY: 'g', GOOGLE_API_KEY: 'o' };
    expect(findGeminiKey({ api_key_env: 'MY_KEY' }, env)).toEqual({ key: 'm', source: 'MY_KEY' });
    expect(findGeminiKey({}, env)).toEqual({ key: 'g', source: 'GEMINI_API_KEY' });
    expect(findGeminiKey({}, { GOOGLE_API_KEY: 'o' })).toEqual({ key: 'o', source: 'GOOGLE_API_KEY' });
    expect(findGeminiKey({ api_key_env: 'MY_KEY' }, { MY_KEY: ' ', GEMINI_API_KEY: 'g' })?.source).toBe('GEMINI_API_KEY');
    expect(findGeminiKey({}, {})).toBeUndefined();
  });
});

describe('createGeminiClient', () => {
  it('streams the prompt, system instruction and JSON schema with the key in x-goog-api-key', async () => {
    const server = await fake({ replies: [geminiTextReply('{"intent":"sum"}', { promptTokens: 30, completionTokens: 8 })] });
    const client = createGeminiClient(modelConfig({ base_url: server.url }), { GEMINI_API_KEY: 'key-123' });
    const schema = { type: 'object', properties: { intent: { type: 'string' } } };

    const result = await client.generate({ prompt: 'Sum it', system: 'Answer in JSON.', jsonSchema: schema, temperature: 0 });

    expect(generations(server)).toHaveLength(1);
    const request = generations(server)[0]!;
    expect(request.method).toBe('POST');
    expect(geminiRoute(request)).toEqual({ model: 'gemini-test', method: 'generateContent', stream: true });
    expect(request.headers['x-goog-api-key']).toBe('key-123');
    expect(request.body).toEqual({
      contents: [{ role: 'user', parts: [{ text: 'Sum it' }] }],
      systemInstruction: { role: 'user', parts: [{ text: 'Answer in JSON.' }] },
      generationConfig: { temperature: 0, responseMimeType: 'application/json', responseJsonSchema: schema },
    });
    expect(result).toMatchObject({ text: '{"intent":"sum"}', model: 'gemini-test', usage: { promptTokens: 30, completionTokens: 8 } });
    expect(result.latencyMs).toBeGreaterThan(0);
    expect(client.keySource).toBe('GEMINI_API_KEY');
  });

  it('sends images as inline data parts after the prompt and caps the answer with maxOutputTokens', async () => {
    const server = await fake({ replies: [geminiTextReply('A red bar chart.')] });
    const client = createGeminiClient(modelConfig({ base_url: server.url }), { GEMINI_API_KEY: 'k' });
    const jpeg = Buffer.from([0xff, 0xd8, 0xff, 9, 8, 7]);
    const result = await client.generate({ prompt: 'Describe it.', images: [{ mimeType: 'image/jpeg', data: jpeg }], maxOutputTokens: 300 });
    expect(result.text).toBe('A red bar chart.');
    expect(generations(server)[0]!.body).toMatchObject({
      contents: [{ role: 'user', parts: [{ text: 'Describe it.' }, { inlineData: { mimeType: 'image/jpeg', data: jpeg.toString('base64') } }] }],
      generationConfig: { maxOutputTokens: 300 },
    });
  });

  it('says when the reply stopped at maxOutputTokens (finishReason MAX_TOKENS)', async () => {
    const server = await fake({ replies: [geminiTextReply('```js\nasync function solve() {', { finishReason: 'MAX_TOKENS' })] });
    const client = createGeminiClient(modelConfig({ base_url: server.url }), { GEMINI_API_KEY: 'k' });
    expect((await client.generate({ prompt: 'plan' })).hitOutputLimit).toBe(true);
  });

  it('sends no JSON mode and no system instruction for a plain prompt', async () => {
    const server = await fake({ replies: [geminiTextReply('plain')] });
    const client = createGeminiClient(modelConfig({ base_url: server.url }), { GEMINI_API_KEY: 'k' });
    expect((await client.generate({ prompt: 'hi' })).text).toBe('plain');
    const body = generations(server)[0]!.body;
    expect(body.contents).toEqual([{ role: 'user', parts: [{ text: 'hi' }] }]);
    expect(body.systemInstruction).toBeUndefined();
    expect(body.generationConfig ?? {}).toEqual({});
  });

  it('uses the key named by api_key_env and reports where it came from', async () => {
    const server = await fake({ apiKey: 'mine', replies: [geminiTextReply('ok')] });
    const client = createGeminiClient(modelConfig({ base_url: server.url, api_key_env: 'MY_GEMINI' }), {
      MY_GEMINI: 'mine',
      GEMINI_API_KEY: 'other',
    });
    expect(client.keySource).toBe('MY_GEMINI');
    expect((await client.generate({ prompt: 'hi' })).text).toBe('ok');
  });

  it('falls back to GOOGLE_API_KEY', async () => {
    const server = await fake({ apiKey: 'google-key', replies: [geminiTextReply('ok')] });
    const client = createGeminiClient(modelConfig({ base_url: server.url }), { GOOGLE_API_KEY: 'google-key' });
    expect(client.keySource).toBe('GOOGLE_API_KEY');
    expect((await client.generate({ prompt: 'hi' })).text).toBe('ok');
  });

  it('takes the endpoint from GEMINI_BASE_URL when models.yaml gives none', async () => {
    const server = await fake({ replies: [geminiTextReply('via env')] });
    const client = createGeminiClient(modelConfig(), { GEMINI_API_KEY: 'k', GEMINI_BASE_URL: server.url });
    expect(client.baseUrl).toBe(server.url);
    expect((await client.generate({ prompt: 'hi' })).text).toBe('via env');
  });

  it('refuses to start without a key and says which variable to set', () => {
    expect(() => createGeminiClient(modelConfig(), {})).toThrow(LlmUnavailableError);
    expect(() => createGeminiClient(modelConfig(), {})).toThrow(/export GEMINI_API_KEY=/);
  });

  it('points at the key when the API rejects it, without retrying', async () => {
    const server = await fake({ apiKey: 'right', replies: [geminiTextReply('never')] });
    const client = createGeminiClient(modelConfig({ base_url: server.url }), { GEMINI_API_KEY: 'wrong' }, instantRetries());
    const error = await client.generate({ prompt: 'hi' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LlmRequestError);
    expect(error).toMatchObject({ status: 400 });
    expect((error as Error).message).toMatch(/API key not valid.*check the key in GEMINI_API_KEY/);
    expect(generations(server)).toHaveLength(1);
  });

  it('retries a 503 with growing backoff, then returns the answer', async () => {
    const server = await fake({
      replies: [geminiError(503, 'overloaded'), geminiError(503, 'overloaded'), geminiTextReply('ok')],
    });
    const tuning = instantRetries();
    const client = createGeminiClient(modelConfig({ base_url: server.url }), { GEMINI_API_KEY: 'k' }, tuning);
    expect((await client.generate({ prompt: 'hi' })).text).toBe('ok');
    expect(generations(server)).toHaveLength(3);
    expect(tuning.waits).toEqual([50, 100]);
  });

  it('waits as long as a 429 asks before retrying', async () => {
    const server = await fake({ replies: [geminiError(429, 'quota', { retryDelay: '2s' }), geminiTextReply('ok')] });
    const tuning = instantRetries();
    const client = createGeminiClient(modelConfig({ base_url: server.url }), { GEMINI_API_KEY: 'k' }, tuning);
    expect((await client.generate({ prompt: 'hi' })).text).toBe('ok');
    expect(tuning.waits).toEqual([2000]);
  });

  it('does not retry a 400', async () => {
    const server = await fake({ replies: [geminiError(400, 'bad schema'), geminiTextReply('never')] });
    const client = createGeminiClient(modelConfig({ base_url: server.url }), { GEMINI_API_KEY: 'k' }, instantRetries());
    const error = await client.generate({ prompt: 'hi' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 400, code: 'llm_request' });
    expect((error as Error).message).toBe('gemini: HTTP 400: bad schema');
    expect(generations(server)).toHaveLength(1);
  });

  it('aborts a request that outlives timeout_ms', async () => {
    const server = await fake({ replies: [{ hang: true }, geminiTextReply('late')] });
    const client = createGeminiClient(modelConfig({ base_url: server.url, timeout_ms: 200 }), { GEMINI_API_KEY: 'k' });
    const error = await client.generate({ prompt: 'hi' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LlmRequestError);
    expect((error as Error).message).toMatch(/no answer within 200 ms/);
    expect(generations(server)).toHaveLength(1);
  });

  it("stops when the caller's signal aborts", async () => {
    const server = await fake({ replies: [{ hang: true }] });
    const client = createGeminiClient(modelConfig({ base_url: server.url }), { GEMINI_API_KEY: 'k' });
    const controller = new AbortController();
    const pending = client.generate({ prompt: 'hi', signal: controller.signal }).catch((e: unknown) => e);
    await server.waitForRequests(1);
    controller.abort();
    expect(await pending).toMatchObject({ code: 'llm_request', message: expect.stringMatching(/aborted by the caller/) });
  });

  it('counts thinking tokens as completion tokens', async () => {
    const server = await fake({ replies: [geminiTextReply('ok', { promptTokens: 5, completionTokens: 3, thoughtsTokens: 20 })] });
    const client = createGeminiClient(modelConfig({ base_url: server.url }), { GEMINI_API_KEY: 'k' });
    expect((await client.generate({ prompt: 'hi' })).usage).toEqual({ promptTokens: 5, completionTokens: 23 });
  });

  it('reports a blocked, empty answer as an error', async () => {
    const blocked = { body: { candidates: [{ content: { role: 'model', parts: [] }, finishReason: 'SAFETY' }] } };
    const server = await fake({ replies: [blocked] });
    const client = createGeminiClient(modelConfig({ base_url: server.url }), { GEMINI_API_KEY: 'k' });
    await expect(client.generate({ prompt: 'hi' })).rejects.toThrow(/empty answer \(SAFETY\)/);
  });

  it('embeds texts with batchEmbedContents and the embedding model', async () => {
    const server = await fake({ replies: [geminiBatchEmbedReply([[1, 2], [3, 4]])] });
    const client = createGeminiClient(modelConfig({ base_url: server.url }), { GEMINI_API_KEY: 'k' });
    const result = await client.embed(['alpha', 'beta']);
    const request = server.requests[0]!;
    expect(geminiRoute(request)).toEqual({ model: 'embed-test', method: 'batchEmbedContents' });
    expect(request.body).toEqual({
      requests: [
        { model: 'models/embed-test', content: { role: 'user', parts: [{ text: 'alpha' }] } },
        { model: 'models/embed-test', content: { role: 'user', parts: [{ text: 'beta' }] } },
      ],
    });
    expect(result).toMatchObject({ vectors: [[1, 2], [3, 4]], model: 'embed-test' });
  });

  it("tells Gemini each text's task: passages searched, or the query searching them", async () => {
    const server = await fake({ replies: [geminiBatchEmbedReply([[1, 2]]), geminiBatchEmbedReply([[3, 4]])] });
    const client = createGeminiClient(modelConfig({ base_url: server.url }), { GEMINI_API_KEY: 'k' });
    await client.embed(['a passage'], { purpose: 'document' });
    await client.embed(['a question'], { purpose: 'query' });
    const taskTypes = server.requests.map((r) => (r.body.requests as Array<{ taskType?: string }>).map((q) => q.taskType));
    expect(taskTypes).toEqual([['RETRIEVAL_DOCUMENT'], ['RETRIEVAL_QUERY']]);
  });

  it('splits many texts into batches the API accepts and keeps their order', async () => {
    const server = await fake({
      replies: (r) =>
        geminiBatchEmbedReply((r.body.requests as { content: { parts: { text: string }[] } }[]).map((q) => [Number(q.content.parts[0]!.text)])),
    });
    const client = createGeminiClient(modelConfig({ base_url: server.url }), { GEMINI_API_KEY: 'k' });
    const texts = Array.from({ length: GEMINI_EMBED_BATCH_MAX + 1 }, (_, i) => String(i));
    const result = await client.embed(texts);
    expect(server.requests).toHaveLength(2);
    expect(result.vectors).toEqual(texts.map((t) => [Number(t)]));
  });

  it('makes no request for an empty list of texts', async () => {
    const server = await fake();
    const client = createGeminiClient(modelConfig({ base_url: server.url }), { GEMINI_API_KEY: 'k' });
    expect((await client.embed([])).vectors).toEqual([]);
    expect(server.requests).toHaveLength(0);
  });
});

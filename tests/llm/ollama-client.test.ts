import { describe, expect, it } from 'vitest';
import type { ModelConfig } from '../../src/config/models.js';
import { LlmRequestError } from '../../src/errors.js';
import { OLLAMA_EMBED_BATCH_MAX, createOllamaClient } from '../../src/llm/ollama-client.js';
import {
  ollamaChatReply,
  ollamaEmbedReply,
  ollamaError,
  startFakeOllamaServer,
} from '../helpers/fake-ollama-server.js';
import type { LlmProgress } from '../../src/llm/types.js';
import type { FakeLlmServer } from '../helpers/fake-ollama-server.js';
import { fakeServers, instantRetries } from './llm-test-kit.js';

/** The chat requests a fake received (the /api/show look-up left out). */
const chats = (server: FakeLlmServer) => server.requests.filter((r) => r.path === '/api/chat');

const fake = fakeServers(startFakeOllamaServer);

function modelConfig(overrides: Partial<ModelConfig> = {}): ModelConfig {
  return { type: 'ollama', model: 'qwen-test', embedding_model: 'embed-test', timeout_ms: 10_000, max_retries: 3, ...overrides };
}

describe('createOllamaClient', () => {
  it('streams the system and user messages, the model and the JSON schema as format, with a num_ctx', async () => {
    const server = await fake({ replies: [ollamaChatReply('{"intent":"sum"}', { promptTokens: 42, completionTokens: 9 })] });
    const client = createOllamaClient(modelConfig({ base_url: server.url }), {});
    const schema = { type: 'object', properties: { intent: { type: 'string' } }, required: ['intent'] };

    const result = await client.generate({ prompt: 'What is 2+2?', system: 'Be brief.', jsonSchema: schema, temperature: 0.1 });

    expect(chats(server)).toHaveLength(1);
    const request = chats(server)[0]!;
    expect(request.method).toBe('POST');
    expect(request.path).toBe('/api/chat');
    expect(request.body).toEqual({
      model: 'qwen-test',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'What is 2+2?' },
      ],
      stream: true,
      format: schema,
      options: { num_ctx: 4096, temperature: 0.1 },
    });
    expect(result.text).toBe('{"intent":"sum"}');
    expect(result.model).toBe('qwen-test');
    expect(result.usage).toEqual({ promptTokens: 42, completionTokens: 9 });
    expect(result.latencyMs).toBeGreaterThan(0);
  });

  it('sends images base64-encoded in the user message and caps the answer with num_predict', async () => {
    const server = await fake({ replies: [ollamaChatReply('A red bar chart.')] });
    const client = createOllamaClient(modelConfig({ base_url: server.url }), {});
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);
    const result = await client.generate({ prompt: 'Describe it.', images: [{ mimeType: 'image/png', data: png }], maxOutputTokens: 300 });
    expect(result.text).toBe('A red bar chart.');
    expect(chats(server)[0]!.body).toMatchObject({
      messages: [{ role: 'user', content: 'Describe it.', images: [png.toString('base64')] }],
      options: { num_ctx: 4096, num_predict: 300 },
    });
  });

  it('says when the reply stopped at num_predict (done_reason length)', async () => {
    const cut = ollamaChatReply('```js\nasync function solve() {');
    const server = await fake({ replies: [{ body: { ...(cut.body as object), done_reason: 'length' } }, ollamaChatReply('whole')] });
    const client = createOllamaClient(modelConfig({ base_url: server.url }), {});
    expect((await client.generate({ prompt: 'plan' })).hitOutputLimit).toBe(true);
    expect((await client.generate({ prompt: 'plan' })).hitOutputLimit).toBeUndefined();
  });

  it('sends no format and no system message for a plain prompt', async () => {
    const server = await fake({ replies: [ollamaChatReply('hello')] });
    const client = createOllamaClient(modelConfig({ base_url: server.url }), {});
    await client.generate({ prompt: 'hi' });
    expect(chats(server)[0]!.body).toEqual({ model: 'qwen-test', messages: [{ role: 'user', content: 'hi' }], stream: true, options: { num_ctx: 4096 } });
  });

  it('talks to OLLAMA_HOST when models.yaml gives no base_url', async () => {
    const server = await fake({ replies: [ollamaChatReply('from env host')] });
    const client = createOllamaClient(modelConfig(), { OLLAMA_HOST: `127.0.0.1:${server.port}` });
    expect(client.host).toBe(server.url);
    expect((await client.generate({ prompt: 'hi' })).text).toBe('from env host');
  });

  it('talks to base_url rather than OLLAMA_HOST when both are set', async () => {
    const configured = await fake({ replies: [ollamaChatReply('configured')] });
    const fromEnv = await fake({ replies: [ollamaChatReply('env')] });
    const client = createOllamaClient(modelConfig({ base_url: configured.url }), { OLLAMA_HOST: fromEnv.url });
    expect((await client.generate({ prompt: 'hi' })).text).toBe('configured');
    expect(fromEnv.requests).toHaveLength(0);
  });

  it('retries a 503 with growing backoff, then returns the answer', async () => {
    const server = await fake({ replies: [ollamaError(503, 'busy'), ollamaError(503, 'busy'), ollamaChatReply('ok')] });
    const tuning = instantRetries();
    const client = createOllamaClient(modelConfig({ base_url: server.url }), {}, tuning);
    expect((await client.generate({ prompt: 'hi' })).text).toBe('ok');
    expect(chats(server)).toHaveLength(3);
    expect(tuning.waits).toEqual([50, 100]);
  });

  it('retries after a dropped connection', async () => {
    const server = await fake({ replies: [{ drop: true }, ollamaChatReply('ok')] });
    const client = createOllamaClient(modelConfig({ base_url: server.url }), {}, instantRetries());
    expect((await client.generate({ prompt: 'hi' })).text).toBe('ok');
    expect(chats(server)).toHaveLength(2);
  });

  it('does not retry a 400 and reports its status', async () => {
    const server = await fake({ replies: [ollamaError(400, 'invalid format'), ollamaChatReply('never')] });
    const client = createOllamaClient(modelConfig({ base_url: server.url }), {}, instantRetries());
    const error = await client.generate({ prompt: 'hi' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LlmRequestError);
    expect(error).toMatchObject({ status: 400, code: 'llm_request' });
    expect((error as Error).message).toContain('invalid format');
    expect(chats(server)).toHaveLength(1);
  });

  it('gives up after max_retries and says how many attempts it made', async () => {
    const server = await fake({ replies: (r) => (r.path === '/api/chat' ? ollamaError(500, 'boom') : undefined) });
    const client = createOllamaClient(modelConfig({ base_url: server.url, max_retries: 2 }), {}, instantRetries());
    const error = await client.generate({ prompt: 'hi' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 500 });
    expect((error as Error).message).toMatch(/gave up after 3 attempts/);
    expect((error as Error).cause).toBeInstanceOf(AggregateError);
    expect(chats(server)).toHaveLength(3);
  });

  it('says to pull a model the server does not have', async () => {
    const server = await fake({ replies: [ollamaError(404, "model 'qwen-test' not found")] });
    const client = createOllamaClient(modelConfig({ base_url: server.url }), {}, instantRetries());
    await expect(client.generate({ prompt: 'hi' })).rejects.toThrow(/ollama pull qwen-test/);
  });

  it('aborts a request that outlives timeout_ms, without retrying it', async () => {
    const server = await fake({ replies: [{ hang: true }, ollamaChatReply('late')] });
    const client = createOllamaClient(modelConfig({ base_url: server.url, timeout_ms: 200 }), {}, instantRetries());
    const error = await client.generate({ prompt: 'hi' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LlmRequestError);
    expect((error as Error).message).toMatch(/no answer within 200 ms/);
    expect(chats(server)).toHaveLength(1);
  });

  it("stops when the caller's signal aborts", async () => {
    const server = await fake({ replies: [{ hang: true }] });
    const client = createOllamaClient(modelConfig({ base_url: server.url }), {}, instantRetries());
    const controller = new AbortController();
    const pending = client.generate({ prompt: 'hi', signal: controller.signal }).catch((e: unknown) => e);
    await server.waitForRequests(1);
    controller.abort();
    const error = await pending;
    expect(error).toBeInstanceOf(LlmRequestError);
    expect((error as Error).message).toMatch(/aborted by the caller/);
  });

  it('fails at once when nothing listens at the host, naming it and how to start Ollama', async () => {
    const closed = await startFakeOllamaServer();
    await closed.close();
    const tuning = instantRetries();
    const progress: LlmProgress[] = [];
    const client = createOllamaClient(modelConfig({ base_url: closed.url, max_retries: 3 }), {}, tuning);
    const error = await client.generate({ prompt: 'hi', onProgress: (p) => progress.push(p) }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LlmRequestError);
    expect((error as Error).message).toContain(`Ollama is not running at ${closed.url}`);
    expect((error as Error).message).toMatch(/ollama serve/);
    expect((error as Error).message).toMatch(/OLLAMA_HOST/);
    expect(tuning.waits).toEqual([]);
    expect(progress).toEqual([]);
  });

  it('embeds texts through /api/embed with the embedding model', async () => {
    const server = await fake({ replies: [ollamaEmbedReply([[0.1, 0.2], [0.3, 0.4]])] });
    const client = createOllamaClient(modelConfig({ base_url: server.url }), {});
    const result = await client.embed(['alpha', 'beta']);
    expect(server.requests[0]).toMatchObject({ path: '/api/embed', body: { model: 'embed-test', input: ['alpha', 'beta'] } });
    expect(result.vectors).toEqual([[0.1, 0.2], [0.3, 0.4]]);
    expect(result.model).toBe('embed-test');
    expect(result.latencyMs).toBeGreaterThan(0);
  });

  it('splits many texts into batches and keeps their order', async () => {
    const server = await fake({
      replies: (r) => (r.path === '/api/embed' ? ollamaEmbedReply((r.body.input as string[]).map((t) => [Number(t)])) : undefined),
    });
    const client = createOllamaClient(modelConfig({ base_url: server.url }), {});
    const texts = Array.from({ length: OLLAMA_EMBED_BATCH_MAX + 6 }, (_, i) => String(i));
    const result = await client.embed(texts);
    expect(server.requests).toHaveLength(2);
    expect(result.vectors).toEqual(texts.map((t) => [Number(t)]));
  });

  it('rejects an embedding answer with the wrong number of vectors', async () => {
    const server = await fake({ replies: [ollamaEmbedReply([[1]])] });
    const client = createOllamaClient(modelConfig({ base_url: server.url }), {});
    await expect(client.embed(['a', 'b'])).rejects.toThrow(/does not hold 2 embeddings/);
  });

  it('refuses to embed when models.yaml names no embedding model', async () => {
    const client = createOllamaClient(modelConfig({ embedding_model: undefined, base_url: 'http://127.0.0.1:9' }), {});
    await expect(client.embed(['a'])).rejects.toThrow(/no embedding_model/);
  });
});

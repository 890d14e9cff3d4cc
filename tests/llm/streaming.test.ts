import { describe, expect, it } from 'vitest';
import type { ModelConfig } from '../../src/config/models.js';
import { LlmRequestError } from '../../src/errors.js';
import { createGeminiClient } from '../../src/llm/gemini-client.js';
import { createOllamaClient } from '../../src/llm/ollama-client.js';
import { MAX_REPLY_CHARS } from '../../src/llm/read-stream.js';
import type { LlmProgress } from '../../src/llm/types.js';
import { geminiError, geminiSseEvent, geminiTextReply, startFakeGeminiServer } from '../helpers/fake-gemini-server.js';
import { heldStream, ollamaChatReply, ollamaChunk, ollamaDone, ollamaError, startFakeOllamaServer, type FakeReply } from '../helpers/fake-ollama-server.js';
import { fakeServers, instantRetries } from './llm-test-kit.js';

const fakeOllama = fakeServers(startFakeOllamaServer);
const fakeGemini = fakeServers(startFakeGeminiServer);
const ollama = (base_url: string, extra: Partial<ModelConfig> = {}): ModelConfig => ({ type: 'ollama', model: 'm', base_url, timeout_ms: 30_000, max_retries: 3, ...extra });
const gemini = (base_url: string, extra: Partial<ModelConfig> = {}): ModelConfig => ({ type: 'gemini', model: 'gemini-flash-latest', base_url, timeout_ms: 30_000, max_retries: 3, ...extra });
const KEY = { GEMINI_API_KEY: 'k' };

/** Frames without end: the model that never stops. */
function* endless(frame: string): Generator<string> {
  for (;;) yield frame;
}

const textOf = (events: LlmProgress[]) => events.flatMap((e) => (e.kind === 'text' ? [e.delta] : [])).join('');

describe('Ollama streaming', () => {
  it('reports each piece of text as it arrives, then the usage of the last chunk', async () => {
    const held = heldStream([ollamaChunk('Hel'), ollamaChunk('lo'), ollamaDone({ promptTokens: 40, completionTokens: 2 })]);
    const server = await fakeOllama({ replies: (r) => (r.path === '/api/chat' ? { frames: held.frames } : undefined) });
    const events: LlmProgress[] = [];
    let seen = (): void => undefined;
    const pending = createOllamaClient(ollama(server.url), {}).generate({
      prompt: 'hi',
      onProgress: (p) => {
        events.push(p);
        seen();
      },
    });
    const arrives = () => new Promise<void>((resolve) => (seen = resolve));
    held.release();
    await arrives();
    expect(events).toEqual([{ kind: 'text', delta: 'Hel', completionTokens: 1 }]);
    held.release();
    await arrives();
    expect(textOf(events)).toBe('Hello');
    held.release();
    const result = await pending;
    expect(result.text).toBe('Hello');
    expect(result.usage).toEqual({ promptTokens: 40, completionTokens: 2 });
  });

  it('streams JSON-schema requests too', async () => {
    const server = await fakeOllama({ replies: [ollamaChatReply('{"intent":"x"}')] });
    const events: LlmProgress[] = [];
    const result = await createOllamaClient(ollama(server.url), {}).generate({ prompt: 'p', jsonSchema: { type: 'object' }, onProgress: (p) => events.push(p) });
    expect(result.text).toBe('{"intent":"x"}');
    expect(textOf(events)).toBe('{"intent":"x"}');
    expect(server.requests.find((r) => r.path === '/api/chat')!.body).toMatchObject({ stream: true, format: { type: 'object' } });
  });

  it('tells each retry before its wait, with the attempt and the reason in plain words', async () => {
    const server = await fakeOllama({ replies: [ollamaError(500, 'boom'), { drop: true }, ollamaChatReply('ok')] });
    const events: LlmProgress[] = [];
    const result = await createOllamaClient(ollama(server.url), {}, instantRetries()).generate({ prompt: 'hi', onProgress: (p) => events.push(p) });
    expect(result.text).toBe('ok');
    expect(events.filter((e) => e.kind === 'retry')).toEqual([
      { kind: 'retry', attempt: 2, maxAttempts: 4, reason: 'HTTP 500', delayMs: 50 },
      { kind: 'retry', attempt: 3, maxAttempts: 4, reason: 'connection cut', delayMs: 100 },
    ]);
  });

  it('retries a stream cut before any text, and fails clearly on one cut after text arrived', async () => {
    const early = await fakeOllama({ replies: [{ frames: [], cutAfterFrames: true }, ollamaChatReply('second time')] });
    expect((await createOllamaClient(ollama(early.url), {}, instantRetries()).generate({ prompt: 'hi' })).text).toBe('second time');

    const late = await fakeOllama({ replies: [{ frames: [ollamaChunk('half an ans')], cutAfterFrames: true }, ollamaChatReply('never')] });
    const error = await createOllamaClient(ollama(late.url), {}, instantRetries()).generate({ prompt: 'hi' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LlmRequestError);
    expect((error as Error).message).toContain('the reply was cut off after 11 characters');
    expect(late.requests.filter((r) => r.path === '/api/chat')).toHaveLength(1);
  });

  it('reads a stream that ends without its done line as cut', async () => {
    const server = await fakeOllama({ replies: [{ frames: [ollamaChunk('so far')] }] });
    const error = await createOllamaClient(ollama(server.url, { max_retries: 0 }), {}).generate({ prompt: 'hi' }).catch((e: unknown) => e);
    expect((error as Error).message).toContain('the reply was cut off after 6 characters');
  });

  it('stops a reply past 1 MB with a clear message, without retrying', async () => {
    const piece = 'x'.repeat(100_000);
    const server = await fakeOllama({ replies: [{ frames: [...Array.from({ length: 11 }, () => ollamaChunk(piece)), ollamaDone()] }] });
    const events: LlmProgress[] = [];
    const error = await createOllamaClient(ollama(server.url), {}, instantRetries()).generate({ prompt: 'hi', onProgress: (p) => events.push(p) }).catch((e: unknown) => e);
    expect((error as Error).message).toContain(`passed ${MAX_REPLY_CHARS.toLocaleString('en-US')} characters`);
    expect(events.some((e) => e.kind === 'retry')).toBe(false);
  });

  it('ends a model that streams forever', async () => {
    const server = await fakeOllama({ replies: (r) => (r.path === '/api/chat' ? { frames: endless(ollamaChunk('again '.repeat(500))) } : undefined) });
    const error = await createOllamaClient(ollama(server.url), {}, instantRetries()).generate({ prompt: 'hi' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LlmRequestError);
    expect((error as Error).message).toMatch(/characters and was stopped/);
  });

  it('ends a stream that goes quiet mid-reply after the idle limit', async () => {
    const held = heldStream([ollamaChunk('start'), ollamaDone()]);
    held.release(); // the first chunk only: the second never comes
    const server = await fakeOllama({ replies: (r) => (r.path === '/api/chat' ? { frames: held.frames } : undefined) });
    const client = createOllamaClient(ollama(server.url), {}, { ...instantRetries(), idleTimeoutMs: 50 });
    const error = await client.generate({ prompt: 'hi' }).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/stopped sending/);
    expect(server.requests.filter((r) => r.path === '/api/chat')).toHaveLength(1);
  });
});

describe('stopping a streamed reply', () => {
  it("stops mid-reply when the caller's signal aborts", async () => {
    const held = heldStream([ollamaChunk('first'), ollamaChunk('second'), ollamaDone()]);
    const server = await fakeOllama({ replies: (r) => (r.path === '/api/chat' ? { frames: held.frames } : undefined) });
    const controller = new AbortController();
    const pending = createOllamaClient(ollama(server.url), {}).generate({
      prompt: 'hi',
      signal: controller.signal,
      onProgress: (p) => p.kind === 'text' && controller.abort(),
    }).catch((e: unknown) => e);
    held.release();
    const error = await pending;
    expect(error).toBeInstanceOf(LlmRequestError);
    expect((error as Error).message).toMatch(/aborted by the caller/);
    expect(held.sent()).toBe(1);
  });

  it('fails at once when nothing listens at the Gemini base URL', async () => {
    const closed = await startFakeGeminiServer();
    await closed.close();
    const tuning = instantRetries();
    const error = await createGeminiClient(gemini(closed.url), KEY, tuning).generate({ prompt: 'hi' }).catch((e: unknown) => e);
    expect((error as Error).message).toContain(`nothing answers at ${closed.url} (connection refused)`);
    expect(tuning.waits).toEqual([]);
  });
});

describe('Ollama num_ctx', () => {
  const chatBody = (server: { requests: Array<{ path: string; body: any }> }, i = 0) => server.requests.filter((r) => r.path === '/api/chat')[i]!.body;

  it('sizes num_ctx to a long prompt plus room for the answer, in steps, and never shrinks it back', async () => {
    const server = await fakeOllama({ contextLength: 131_072, replies: [ollamaChatReply('a'), ollamaChatReply('b')] });
    const client = createOllamaClient(ollama(server.url), {});
    await client.generate({ prompt: 'w'.repeat(30_000) }); // ~10,000 tokens + 2,048 for the answer
    await client.generate({ prompt: 'short' });
    expect(chatBody(server, 0).options.num_ctx).toBe(12_288);
    expect(chatBody(server, 1).options.num_ctx).toBe(12_288);
    expect(server.requests.filter((r) => r.path === '/api/show')).toHaveLength(1);
  });

  it("counts maxOutputTokens as the answer's room", async () => {
    const server = await fakeOllama({ replies: [ollamaChatReply('a')] });
    await createOllamaClient(ollama(server.url), {}).generate({ prompt: 'w'.repeat(12_000), maxOutputTokens: 5_000 });
    expect(chatBody(server).options).toEqual({ num_ctx: 10_240, num_predict: 5_000 });
  });

  it("caps num_ctx at the model's context length and says the prompt will be cut", async () => {
    const server = await fakeOllama({ contextLength: 8_192, replies: [ollamaChatReply('a')] });
    const events: LlmProgress[] = [];
    await createOllamaClient(ollama(server.url), {}).generate({ prompt: 'w'.repeat(60_000), onProgress: (p) => events.push(p) });
    expect(chatBody(server).options.num_ctx).toBe(8_192);
    const notice = events.find((e) => e.kind === 'notice');
    expect(notice).toMatchObject({ kind: 'notice', message: expect.stringContaining('its beginning will be cut') });
  });

  it('assumes a named default when /api/show gives no context length, and says so', async () => {
    const server = await fakeOllama({ contextLength: null, replies: [ollamaChatReply('a')] });
    const events: LlmProgress[] = [];
    await createOllamaClient(ollama(server.url), {}).generate({ prompt: 'w'.repeat(60_000), onProgress: (p) => events.push(p) });
    expect(chatBody(server).options.num_ctx).toBe(8_192);
    expect(events.filter((e) => e.kind === 'notice').map((e) => (e as { message: string }).message)[0]).toContain('does not report its context length; assuming 8192');
  });

  it('takes the window from context_tokens in models.yaml, over what /api/show says', async () => {
    const server = await fakeOllama({ contextLength: null, replies: [ollamaChatReply('a')] });
    const events: LlmProgress[] = [];
    await createOllamaClient({ ...ollama(server.url), context_tokens: 16_384 }, {}).generate({ prompt: 'w'.repeat(60_000), onProgress: (p) => events.push(p) });
    expect(chatBody(server).options.num_ctx).toBe(16_384);
    expect(events.some((e) => e.kind === 'notice' && e.message.includes('does not report'))).toBe(false);
  });

  it('keeps the rules of a long prompt that the default window would cut', async () => {
    const server = await fakeOllama({ truncateToNumCtx: true, replies: [ollamaChatReply('a')] });
    const prompt = `RULES FIRST\n${'filler '.repeat(3_000)}`;
    await createOllamaClient(ollama(server.url), {}).generate({ prompt });
    const kept = chatBody(server).messages.map((m: { content: string }) => m.content).join('\n');
    expect(kept).toContain('RULES FIRST');
  });
});

describe('Gemini streaming', () => {
  it('reports text with the provider counts and takes the usage from the last event', async () => {
    const usage = { promptTokenCount: 12, candidatesTokenCount: 5, totalTokenCount: 17 };
    const server = await fakeGemini({
      replies: (r) =>
        r.method === 'POST'
          ? { headers: { 'content-type': 'text/event-stream' }, frames: [geminiSseEvent('Hi ', { usageMetadata: { candidatesTokenCount: 2 } }), geminiSseEvent('there', { finishReason: 'STOP', usageMetadata: usage })] }
          : undefined,
    });
    const events: LlmProgress[] = [];
    const result = await createGeminiClient(gemini(server.url), KEY).generate({ prompt: 'hi', onProgress: (p) => events.push(p) });
    expect(result.text).toBe('Hi there');
    expect(result.usage).toEqual({ promptTokens: 12, completionTokens: 5 });
    expect(events).toEqual([
      { kind: 'text', delta: 'Hi ', completionTokens: 2 },
      { kind: 'text', delta: 'there', completionTokens: 5 },
    ]);
  });

  it('retries a 503 with progress, and fails clearly on a stream cut after text', async () => {
    const server = await fakeGemini({ replies: [geminiError(503, 'overloaded'), { frames: [geminiSseEvent('part')], cutAfterFrames: true }, geminiTextReply('never')] });
    const events: LlmProgress[] = [];
    const error = await createGeminiClient(gemini(server.url), KEY, instantRetries()).generate({ prompt: 'hi', onProgress: (p) => events.push(p) }).catch((e: unknown) => e);
    expect(events.filter((e) => e.kind === 'retry')).toEqual([{ kind: 'retry', attempt: 2, maxAttempts: 4, reason: 'HTTP 503', delayMs: 50 }]);
    expect((error as Error).message).toContain('the reply was cut off after 4 characters');
  });

  it('stops a reply past 1 MB', async () => {
    const server = await fakeGemini({ replies: (r) => (r.method === 'POST' ? ({ frames: endless(geminiSseEvent('y'.repeat(50_000))) } satisfies FakeReply) : undefined) });
    const error = await createGeminiClient(gemini(server.url), KEY, instantRetries()).generate({ prompt: 'hi' }).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/characters and was stopped/);
  });

  it("warns when the prompt is larger than the model's inputTokenLimit", async () => {
    const server = await fakeGemini({ models: [{ name: 'small', inputTokenLimit: 1_000 }], currentOnly: true, replies: [geminiTextReply('ok')] });
    const events: LlmProgress[] = [];
    await createGeminiClient(gemini(server.url, { model: 'small' }), KEY).generate({ prompt: 'z'.repeat(9_000), onProgress: (p) => events.push(p) });
    expect(events.find((e) => e.kind === 'notice')).toMatchObject({ message: expect.stringContaining('small reads at most 1000') });
  });
});

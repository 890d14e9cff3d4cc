// A local HTTP server speaking Ollama's wire format from a script of replies; also the scripted-server core the Gemini fake reuses.
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Request bodies above this are cut off: the fakes only ever see prompts and short texts. */
const FAKE_MAX_BODY_BYTES = 10 * 2 ** 20;
/**
 * Status of a request nobody scripted: a 4xx, so clients fail at once instead of retrying,
 * and an unusual one, so the test's failure points here.
 */
export const UNSCRIPTED_STATUS = 418;

/** One request as the fake server saw it. */
export interface RecordedRequest {
  method: string;
  /** Path and query, e.g. /api/chat or /v1beta/models/m:generateContent. */
  path: string;
  headers: IncomingHttpHeaders;
  /** The body parsed as JSON, else its text; undefined when empty. In the truncating Ollama mode, what the model kept. */
  body: any;
  /** The body as sent, when the fake changed `body` (the truncating Ollama mode). */
  sentBody?: any;
}

/** How the server answers one request. */
export interface FakeReply {
  /** HTTP status (default 200). */
  status?: number;
  /** Sent as JSON; a string is sent as it is. */
  body?: unknown;
  headers?: Record<string, string>;
  /** Never answer (for timeout and abort tests); close() cuts the connection. */
  hang?: boolean;
  /** Cut the connection without answering (a network error for the client). */
  drop?: boolean;
  /**
   * A streamed answer written frame by frame (NDJSON lines, SSE events) as the iterable yields them, so a test
   * can hold the stream between frames. A plain `body` is turned into frames when the request asked to stream.
   */
  frames?: Iterable<string> | AsyncIterable<string>;
  /** After the frames, cut the connection instead of ending the answer (a stream cut mid-reply). */
  cutAfterFrames?: boolean;
}

/**
 * The script: a queue of replies used by the model endpoints in order, or a function of each
 * request (return undefined to fall back to the built-in answers, e.g. /api/version; return a
 * promise to answer when the test says so).
 */
export type ReplyScript = FakeReply[] | ((request: RecordedRequest) => FakeReply | Promise<FakeReply> | undefined);

export interface FakeLlmServer {
  /** Base URL, e.g. http://127.0.0.1:43121. */
  readonly url: string;
  readonly port: number;
  /** Every request received, in order (built-in answers included). */
  readonly requests: RecordedRequest[];
  /** Appends replies to the queue (when the script is a queue). */
  enqueue(...replies: FakeReply[]): void;
  /** Resolves once `count` requests have arrived (bounded by the test's own timeout). */
  waitForRequests(count: number): Promise<void>;
  /** Stops listening and cuts every open connection (hanging requests included). */
  close(): Promise<void>;
}

/** What a protocol-specific fake adds to the core. */
export interface ScriptedServerProtocol {
  /** True for requests that consume the reply queue (the model endpoints). */
  isModelRequest(request: RecordedRequest): boolean;
  /** A refusal that comes before any script, e.g. a wrong API key. */
  refuse?(request: RecordedRequest): FakeReply | undefined;
  /** Answers that need no script, e.g. the version and the model list. */
  builtIn(request: RecordedRequest): FakeReply | undefined;
  /** The error body of the protocol for a message. */
  errorBody(status: number, message: string): unknown;
  /** A streamed form of a successful JSON reply, when the request asked to stream (else undefined). */
  toStream?(request: RecordedRequest, reply: FakeReply): FakeReply | undefined;
  /** Changes what the model sees of a request before the script reads it (the truncating Ollama mode). */
  view?(request: RecordedRequest): void;
}

/** Starts a scripted HTTP server on 127.0.0.1 (a free port) for a protocol. */
export async function startScriptedServer(protocol: ScriptedServerProtocol, script: ReplyScript = []): Promise<FakeLlmServer> {
  const queue = Array.isArray(script) ? [...script] : [];
  const replyFor = typeof script === 'function' ? script : undefined;
  const requests: RecordedRequest[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];

  const choose = async (request: RecordedRequest): Promise<FakeReply> => {
    const refusal = protocol.refuse?.(request);
    if (refusal) return refusal;
    const scripted = await replyFor?.(request);
    if (scripted) return scripted;
    const builtIn = protocol.builtIn(request);
    if (builtIn) return builtIn;
    if (!replyFor && protocol.isModelRequest(request)) {
      const next = queue.shift();
      if (next) return next;
    }
    const message = `fake server: no scripted reply for ${request.method} ${request.path}`;
    return { status: UNSCRIPTED_STATUS, body: protocol.errorBody(UNSCRIPTED_STATUS, message) };
  };

  const server = createServer((req, res) => {
    void readBody(req).then((body) => {
      const request: RecordedRequest = { method: req.method ?? 'GET', path: req.url ?? '/', headers: req.headers, body };
      protocol.view?.(request);
      requests.push(request);
      for (const waiter of waiters.filter((w) => requests.length >= w.count)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
      void choose(request)
        .then((reply) => send(res, streamed(protocol, request, reply)))
        .catch(() => res.socket?.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    enqueue: (...replies) => queue.push(...replies),
    waitForRequests: (count) =>
      requests.length >= count ? Promise.resolve() : new Promise((resolve) => waiters.push({ count, resolve })),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > FAKE_MAX_BODY_BYTES) break;
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function streamed(protocol: ScriptedServerProtocol, request: RecordedRequest, reply: FakeReply): FakeReply {
  if (reply.frames || reply.hang || reply.drop || (reply.status ?? 200) !== 200) return reply;
  return protocol.toStream?.(request, reply) ?? reply;
}

async function send(res: ServerResponse, reply: FakeReply): Promise<void> {
  if (reply.hang) return;
  if (reply.drop) {
    res.socket?.destroy();
    return;
  }
  if (reply.frames) {
    res.writeHead(reply.status ?? 200, { 'content-type': 'application/x-ndjson', ...reply.headers });
    res.flushHeaders();
    for await (const frame of reply.frames) {
      if (res.destroyed || res.writableEnded) return;
      // Wait for the client to read (backpressure), unless it went away.
      if (!res.write(frame)) {
        // The listener of the wait that lost is removed, so a long stream does not pile them up.
        const done = new AbortController();
        await Promise.race([once(res, 'drain', { signal: done.signal }), once(res, 'close', { signal: done.signal })]).catch(() => undefined);
        done.abort();
      }
    }
    if (reply.cutAfterFrames) {
      // Let what was written reach the client before the cut.
      await new Promise<void>((resolve) => res.write('', () => resolve()));
      res.socket?.destroy();
    } else res.end();
    return;
  }
  const text = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body ?? {});
  res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers });
  res.end(text);
}

// ---- Ollama ----

export interface FakeOllamaOptions {
  /** The reply script for /api/chat, /api/generate and /api/embed. */
  replies?: ReplyScript;
  /** Model names listed by /api/tags. */
  models?: string[];
  /** /api/tags's details.families per model name (e.g. bert for an embedding model); none: empty details. */
  families?: Record<string, string[]>;
  /** What /api/version reports. */
  version?: string;
  /** /api/show's `model_info["llama.context_length"]` (default 32768); null: model_info without a context length. */
  contextLength?: number | null;
  /** Like Ollama: /api/show and /api/chat answer 404 "model not found" for a model not in `models`. */
  strictModels?: boolean;
  /**
   * Like Ollama: the model keeps only the LAST num_ctx tokens of a chat (FAKE_DEFAULT_NUM_CTX when the request
   * sends none); the recorded `body` is what it kept, `sentBody` what was sent. Tokens: FAKE_CHARS_PER_TOKEN characters.
   */
  truncateToNumCtx?: boolean;
}

/** Ollama's window when a request sends no num_ctx (the 2,048 of most releases). */
export const FAKE_DEFAULT_NUM_CTX = 2_048;
/** Characters per token in the truncating mode: OpenAI's rule of thumb, less cautious than the client's estimate. */
export const FAKE_CHARS_PER_TOKEN = 4;

const OLLAMA_MODEL_PATHS = new Set(['/api/chat', '/api/generate', '/api/embed', '/api/embeddings']);

/** Starts a fake Ollama server: /api/version and /api/tags answer on their own; model endpoints follow the script. */
export function startFakeOllamaServer(options: FakeOllamaOptions = {}): Promise<FakeLlmServer> {
  const { replies, models = ['qwen2.5-coder:7b', 'nomic-embed-text'], version = '0.6.0-fake', contextLength = 32_768 } = options;
  const known = (name: unknown) => typeof name === 'string' && models.some((m) => m === name || m === `${name}:latest`);
  const missing = (request: RecordedRequest): FakeReply | undefined => {
    if (!options.strictModels || request.method !== 'POST' || !['/api/chat', '/api/show', '/api/generate'].includes(request.path)) return undefined;
    const name = request.body?.model;
    return known(name) ? undefined : ollamaError(404, `model '${String(name)}' not found`);
  };
  return startScriptedServer(
    {
      isModelRequest: (request) => request.method === 'POST' && OLLAMA_MODEL_PATHS.has(request.path),
      refuse: missing,
      view: options.truncateToNumCtx ? truncateChat : undefined,
      toStream: (request, reply) => (request.path === '/api/chat' && request.body?.stream !== false ? ollamaFrames(reply.body) : undefined),
      builtIn: (request) => {
        if (request.method === 'POST' && request.path === '/api/show') {
          const arch = { 'general.architecture': 'llama', ...(contextLength !== null ? { 'llama.context_length': contextLength } : {}) };
          return { body: { modelfile: '', parameters: '', template: '{{ .Prompt }}', details: { family: 'llama' }, model_info: arch, capabilities: ['completion'] } };
        }
        if (request.method !== 'GET') return undefined;
        if (request.path === '/api/version') return { body: { version } };
        if (request.path === '/api/tags') {
          return { body: { models: models.map((name) => {
            const families = options.families?.[name];
            return { name, model: name, size: 0, digest: '', details: families ? { family: families[0], families } : {} };
          }) } };
        }
        return undefined;
      },
      errorBody: (_status, message) => ({ error: message }),
    },
    replies,
  );
}

/** The chat body's messages cut like Ollama cuts them: only the last num_ctx tokens are kept. */
function truncateChat(request: RecordedRequest): void {
  if (request.method !== 'POST' || request.path !== '/api/chat' || !Array.isArray(request.body?.messages)) return;
  const sent = request.body;
  const numCtx: number = sent.options?.num_ctx ?? FAKE_DEFAULT_NUM_CTX;
  let budget = numCtx * FAKE_CHARS_PER_TOKEN;
  const kept: Array<{ content: string }> = [];
  for (const message of [...(sent.messages as Array<{ content: string }>)].reverse()) {
    if (budget <= 0) break;
    const content = message.content.length > budget ? message.content.slice(message.content.length - budget) : message.content;
    budget -= content.length;
    kept.unshift({ ...message, content });
  }
  request.sentBody = sent;
  request.body = { ...sent, messages: kept };
}

/** Splits a text into a few pieces, as a model streams tokens. */
export function pieces(text: string, count = 3): string[] {
  if (text.length === 0) return [''];
  const size = Math.ceil(text.length / count);
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

/** A streamed /api/chat answer: one NDJSON line per piece of the body's message, then the `done` line with the counts. */
function ollamaFrames(body: any): FakeReply | undefined {
  const content = body?.message?.content;
  if (typeof content !== 'string') return undefined;
  const { message, ...final } = body;
  return {
    frames: [
      ...pieces(content).map((piece) => ollamaChunk(piece)),
      `${JSON.stringify({ ...final, message: { role: 'assistant', content: '' }, done: true })}\n`,
    ],
  };
}

/**
 * A stream the test lets out frame by frame, for slow replies without timers: each `release()` lets one more
 * frame go; `sent()` counts the frames written. Use `{ frames }` as a reply (with ollamaChunk / geminiSseEvent frames).
 */
export function heldStream(all: string[]): { frames: AsyncIterable<string>; release: () => void; sent: () => number } {
  let released = 0;
  let sent = 0;
  let wake: (() => void) | undefined;
  return {
    sent: () => sent,
    release: () => {
      released++;
      wake?.();
    },
    frames: (async function* () {
      for (const frame of all) {
        while (released <= sent) await new Promise<void>((resolve) => (wake = resolve));
        sent++;
        yield frame;
      }
    })(),
  };
}

/** One NDJSON line of a streamed /api/chat answer holding `content` (not the last one). */
export function ollamaChunk(content: string, model = 'fake-model'): string {
  return `${JSON.stringify({ model, created_at: new Date(0).toISOString(), message: { role: 'assistant', content }, done: false })}\n`;
}

/** The last NDJSON line of a streamed /api/chat answer, with the counts. */
export function ollamaDone(usage: { promptTokens?: number; completionTokens?: number } = {}): string {
  const { promptTokens = 11, completionTokens = 7 } = usage;
  return `${JSON.stringify({ model: 'fake-model', created_at: new Date(0).toISOString(), message: { role: 'assistant', content: '' }, done: true, done_reason: 'stop', prompt_eval_count: promptTokens, eval_count: completionTokens })}\n`;
}

/** A non-streamed /api/chat answer (streamed by the fake, piece by piece, when the request asks to stream). */
export function ollamaChatReply(
  content: string,
  usage: { promptTokens?: number; completionTokens?: number; model?: string } = {},
): FakeReply {
  const { promptTokens = 11, completionTokens = 7, model = 'fake-model' } = usage;
  return {
    body: {
      model,
      created_at: new Date(0).toISOString(),
      message: { role: 'assistant', content },
      done: true,
      done_reason: 'stop',
      total_duration: 1,
      load_duration: 0,
      prompt_eval_count: promptTokens,
      prompt_eval_duration: 0,
      eval_count: completionTokens,
      eval_duration: 0,
    },
  };
}

/** An /api/embed answer. */
export function ollamaEmbedReply(vectors: number[][], model = 'fake-embed'): FakeReply {
  return { body: { model, embeddings: vectors, total_duration: 1, load_duration: 0, prompt_eval_count: vectors.length } };
}

/** An Ollama error answer, e.g. ollamaError(404, "model 'x' not found"). */
export function ollamaError(status: number, message: string): FakeReply {
  return { status, body: { error: message } };
}

/** What a vision request carried: the user prompt and its images, decoded from base64. */
export interface VisionRequest {
  prompt: string;
  images: Array<{ mimeType?: string; data: Buffer }>;
}

/** The last user message of an /api/chat request with `images` (Ollama's vision format), or undefined for any other request. */
export function ollamaVisionRequest(request: RecordedRequest): VisionRequest | undefined {
  if (request.method !== 'POST' || request.path !== '/api/chat') return undefined;
  const messages: Array<{ role?: string; content?: string; images?: string[] }> = request.body?.messages ?? [];
  const user = messages.filter((m) => m.role === 'user').at(-1);
  if (!user?.images?.length) return undefined;
  return { prompt: user.content ?? '', images: user.images.map((b64) => ({ data: Buffer.from(b64, 'base64') })) };
}

/**
 * The requests that asked a model to write (Ollama /api/chat and /api/generate, Gemini (stream)GenerateContent),
 * leaving out the look-ups a client makes on its own (/api/show, /api/tags, models.get).
 */
export function generateCalls(server: FakeLlmServer): RecordedRequest[] {
  return server.requests.filter((r) => r.path === '/api/chat' || r.path === '/api/generate' || /:(stream)?generateContent(\?|$)/i.test(r.path));
}

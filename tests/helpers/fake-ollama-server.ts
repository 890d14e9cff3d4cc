// A local HTTP server speaking Ollama's wire format from a script of replies; also the scripted-server core the Gemini fake reuses.
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
  /** The body parsed as JSON, else its text; undefined when empty. */
  body: any;
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
      requests.push(request);
      for (const waiter of waiters.filter((w) => requests.length >= w.count)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
      void choose(request).then((reply) => send(res, reply));
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

function send(res: ServerResponse, reply: FakeReply): void {
  if (reply.hang) return;
  if (reply.drop) {
    res.socket?.destroy();
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
  /** What /api/version reports. */
  version?: string;
}

const OLLAMA_MODEL_PATHS = new Set(['/api/chat', '/api/generate', '/api/embed', '/api/embeddings']);

/** Starts a fake Ollama server: /api/version and /api/tags answer on their own; model endpoints follow the script. */
export function startFakeOllamaServer(options: FakeOllamaOptions = {}): Promise<FakeLlmServer> {
  const { replies, models = ['qwen2.5-coder:7b', 'nomic-embed-text'], version = '0.6.0-fake' } = options;
  return startScriptedServer(
    {
      isModelRequest: (request) => request.method === 'POST' && OLLAMA_MODEL_PATHS.has(request.path),
      builtIn: (request) => {
        if (request.method !== 'GET') return undefined;
        if (request.path === '/api/version') return { body: { version } };
        if (request.path === '/api/tags') {
          return { body: { models: models.map((name) => ({ name, model: name, size: 0, digest: '', details: {} })) } };
        }
        return undefined;
      },
      errorBody: (_status, message) => ({ error: message }),
    },
    replies,
  );
}

/** A non-streamed /api/chat answer. */
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

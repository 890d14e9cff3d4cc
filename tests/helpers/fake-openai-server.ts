// A local HTTP server speaking the OpenAI chat-completions wire format (SSE streaming, /v1/models) from a script of replies.
import { pieces, startScriptedServer, type FakeLlmServer, type FakeReply, type RecordedRequest, type ReplyScript } from './fake-ollama-server.js';

export type { FakeLlmServer, FakeReply, RecordedRequest, ReplyScript } from './fake-ollama-server.js';

const CHAT_PATH = '/v1/chat/completions';
const EMBEDDINGS_PATH = '/v1/embeddings';

export interface FakeOpenAiOptions {
  /** Replies for /v1/chat/completions and /v1/embeddings. */
  replies?: ReplyScript;
  /** When set, a request without `Authorization: Bearer <apiKey>` is refused with 401, as OpenAI does. */
  apiKey?: string;
  /** What /v1/models lists (default: fake-gpt). */
  models?: string[];
  /** Like OpenAI: a chat for a model not in `models` answers 404 model_not_found. */
  strictModels?: boolean;
}

/** The chat requests a fake received (the model list left out). */
export const openAiChats = (server: FakeLlmServer): RecordedRequest[] => server.requests.filter((r) => r.method === 'POST' && r.path === CHAT_PATH);

/** Starts a fake OpenAI-compatible server; pass `${url}/v1` as base_url or OPENAI_BASE_URL. */
export function startFakeOpenAiServer(options: FakeOpenAiOptions = {}): Promise<FakeLlmServer> {
  const { replies, apiKey, models = ['fake-gpt'], strictModels = false } = options;
  return startScriptedServer(
    {
      isModelRequest: (request) => request.method === 'POST' && (request.path === CHAT_PATH || request.path === EMBEDDINGS_PATH),
      refuse: (request) => {
        if (apiKey !== undefined && request.headers.authorization !== `Bearer ${apiKey}`) {
          const sent = String(request.headers.authorization ?? '').replace(/^Bearer /, '');
          // OpenAI echoes (part of) the key it was sent; the client must not show it.
          return openAiError(401, `Incorrect API key provided: ${sent}. You can find your API key at https://platform.openai.com/account/api-keys.`, { code: 'invalid_api_key' });
        }
        const model = request.body?.model;
        if (strictModels && request.path === CHAT_PATH && !models.includes(model)) {
          return openAiError(404, `The model \`${String(model)}\` does not exist or you do not have access to it.`, { code: 'model_not_found' });
        }
        return undefined;
      },
      toStream: (request, reply) => (request.path === CHAT_PATH && request.body?.stream ? openAiFrames(request, reply.body) : undefined),
      builtIn: (request) => {
        if (request.method !== 'GET' || request.path !== '/v1/models') return undefined;
        return { body: { object: 'list', data: models.map((id) => ({ id, object: 'model', created: 0, owned_by: 'fake' })) } };
      },
      errorBody: (_status, message) => openAiError(500, message).body,
    },
    replies,
  );
}

/** A non-streamed chat.completion holding `content` (streamed by the fake, piece by piece, when the request asks). */
export function openAiChatReply(
  content: string,
  usage: { promptTokens?: number; completionTokens?: number; finishReason?: string } = {},
): FakeReply {
  const { promptTokens = 11, completionTokens = 7, finishReason = 'stop' } = usage;
  return {
    body: {
      id: 'chatcmpl-fake',
      object: 'chat.completion',
      created: 0,
      model: 'fake-gpt',
      choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: finishReason }],
      usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
    },
  };
}

/** One SSE event of a streamed chat completion: a content delta, or (with `finishReason`) the last choice chunk. */
export function openAiSseChunk(content: string, finishReason: string | null = null): string {
  const chunk = { id: 'chatcmpl-fake', object: 'chat.completion.chunk', created: 0, model: 'fake-gpt', choices: [{ index: 0, delta: { content }, finish_reason: finishReason }] };
  return `data: ${JSON.stringify(chunk)}\n\n`;
}

/** A chat.completion turned into SSE: one chunk per piece, the finish reason, the usage chunk when asked for, [DONE]. */
function openAiFrames(request: RecordedRequest, body: any): FakeReply | undefined {
  const choice = body?.choices?.[0];
  if (typeof choice?.message?.content !== 'string') return undefined;
  const usage = request.body?.stream_options?.include_usage
    ? [`data: ${JSON.stringify({ id: 'chatcmpl-fake', object: 'chat.completion.chunk', created: 0, model: 'fake-gpt', choices: [], usage: body.usage })}\n\n`]
    : [];
  return {
    headers: { 'content-type': 'text/event-stream' },
    frames: [...pieces(choice.message.content).map((piece) => openAiSseChunk(piece)), openAiSseChunk('', choice.finish_reason), ...usage, 'data: [DONE]\n\n'],
  };
}

/** An /v1/embeddings answer. */
export function openAiEmbedReply(vectors: number[][]): FakeReply {
  return { body: { object: 'list', data: vectors.map((embedding, index) => ({ object: 'embedding', index, embedding })), model: 'fake-embed', usage: { prompt_tokens: 1, total_tokens: 1 } } };
}

/** An OpenAI error answer, e.g. openAiError(429, 'Rate limit reached', {headers: {'retry-after': '2'}}). */
export function openAiError(status: number, message: string, extra: { code?: string; headers?: Record<string, string> } = {}): FakeReply {
  const type = status === 429 ? 'rate_limit_exceeded' : status >= 500 ? 'server_error' : 'invalid_request_error';
  return { status, body: { error: { message, type, param: null, code: extra.code ?? null } }, ...(extra.headers ? { headers: extra.headers } : {}) };
}

// A local HTTP server speaking Anthropic's Messages wire format (SSE streaming events, /v1/models) from a script of replies.
import { pieces, startScriptedServer, type FakeLlmServer, type FakeReply, type RecordedRequest, type ReplyScript } from './fake-ollama-server.js';

export type { FakeLlmServer, FakeReply, RecordedRequest, ReplyScript } from './fake-ollama-server.js';

const MESSAGES_PATH = '/v1/messages';

export interface FakeAnthropicOptions {
  /** Replies for /v1/messages. */
  replies?: ReplyScript;
  /** When set, a request whose x-api-key (or Authorization: Bearer) differs is refused with 401, as Anthropic does. */
  apiKey?: string;
  /** What /v1/models lists, newest first (default: claude-fake). */
  models?: string[];
  /** Like Anthropic: a message for a model not in `models` answers 404 not_found_error. */
  strictModels?: boolean;
}

/** The /v1/messages requests a fake received. */
export const anthropicMessages = (server: FakeLlmServer): RecordedRequest[] => server.requests.filter((r) => r.method === 'POST' && r.path.startsWith(MESSAGES_PATH));

/** The key a request carried, by either header the SDK may use. */
export function anthropicKeySent(request: RecordedRequest): string | undefined {
  const bearer = /^Bearer (.+)$/.exec(String(request.headers.authorization ?? ''))?.[1];
  return (request.headers['x-api-key'] as string | undefined) ?? bearer;
}

/** Starts a fake Anthropic API; pass its `url` as base_url or ANTHROPIC_BASE_URL. */
export function startFakeAnthropicServer(options: FakeAnthropicOptions = {}): Promise<FakeLlmServer> {
  const { replies, apiKey, models = ['claude-fake'], strictModels = false } = options;
  return startScriptedServer(
    {
      isModelRequest: (request) => request.method === 'POST' && request.path.startsWith(MESSAGES_PATH),
      refuse: (request) => {
        if (apiKey !== undefined && anthropicKeySent(request) !== apiKey) return anthropicError(401, 'invalid x-api-key', 'authentication_error');
        const model = request.body?.model;
        if (strictModels && request.path.startsWith(MESSAGES_PATH) && !models.includes(model)) {
          return anthropicError(404, `model: ${String(model)}`, 'not_found_error');
        }
        return undefined;
      },
      toStream: (request, reply) => (request.path.startsWith(MESSAGES_PATH) && request.body?.stream ? anthropicFrames(reply.body) : undefined),
      builtIn: (request) => {
        if (request.method !== 'GET' || !request.path.startsWith('/v1/models')) return undefined;
        const data = models.map((id) => ({ type: 'model', id, display_name: id, created_at: '2026-01-01T00:00:00Z', max_input_tokens: 200_000, max_tokens: 64_000 }));
        return { body: { data, has_more: false, first_id: models[0] ?? null, last_id: models.at(-1) ?? null } };
      },
      errorBody: (status, message) => anthropicError(status, message, 'api_error').body,
    },
    replies,
  );
}

/** A non-streamed message holding `text` (streamed by the fake as SSE events when the request asks). */
export function anthropicTextReply(text: string, usage: { inputTokens?: number; outputTokens?: number; stopReason?: string } = {}): FakeReply {
  return anthropicMessage([{ type: 'text', text }], usage);
}

/** A message whose only block calls the forced tool `name` with `input` (structured output). */
export function anthropicToolReply(input: unknown, name = 'answer'): FakeReply {
  return anthropicMessage([{ type: 'tool_use', id: 'toolu_fake', name, input }], { stopReason: 'tool_use' });
}

function anthropicMessage(content: unknown[], usage: { inputTokens?: number; outputTokens?: number; stopReason?: string }): FakeReply {
  const { inputTokens = 11, outputTokens = 7, stopReason = 'end_turn' } = usage;
  return {
    body: {
      id: 'msg_fake',
      type: 'message',
      role: 'assistant',
      model: 'claude-fake',
      content,
      stop_reason: stopReason,
      stop_sequence: null,
      usage: { input_tokens: inputTokens, output_tokens: outputTokens },
    },
  };
}

/** One named SSE event of the Messages stream. */
export function anthropicSseEvent(type: string, data: Record<string, unknown>): string {
  return `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
}

/** A message turned into the Messages stream: start, each block's deltas piece by piece, the stop reason with usage, stop. */
function anthropicFrames(body: any): FakeReply | undefined {
  if (!Array.isArray(body?.content)) return undefined;
  const { content, usage, stop_reason: stopReason } = body;
  const frames = [anthropicSseEvent('message_start', { message: { ...body, content: [], stop_reason: null, usage: { input_tokens: usage.input_tokens, output_tokens: 1 } } })];
  content.forEach((block: any, index: number) => {
    const isTool = block.type === 'tool_use';
    frames.push(anthropicSseEvent('content_block_start', { index, content_block: isTool ? { ...block, input: {} } : { type: 'text', text: '' } }));
    for (const piece of pieces(isTool ? JSON.stringify(block.input) : block.text)) {
      const delta = isTool ? { type: 'input_json_delta', partial_json: piece } : { type: 'text_delta', text: piece };
      frames.push(anthropicSseEvent('content_block_delta', { index, delta }));
    }
    frames.push(anthropicSseEvent('content_block_stop', { index }));
  });
  frames.push(anthropicSseEvent('message_delta', { delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: usage.output_tokens } }));
  frames.push(anthropicSseEvent('message_stop', {}));
  return { headers: { 'content-type': 'text/event-stream' }, frames };
}

/** An Anthropic error answer, e.g. anthropicError(429, 'Rate limited', 'rate_limit_error', {'retry-after': '3'}). */
export function anthropicError(status: number, message: string, type = 'invalid_request_error', headers?: Record<string, string>): FakeReply {
  return { status, body: { type: 'error', error: { type, message } }, ...(headers ? { headers } : {}) };
}

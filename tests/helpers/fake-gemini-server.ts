// A local HTTP server speaking the Gemini API's v1beta wire format (as @google/genai 2.x sends it) from a script of replies.
import {
  pieces,
  startScriptedServer,
  type FakeLlmServer,
  type FakeReply,
  type RecordedRequest,
  type ReplyScript,
  type VisionRequest,
} from './fake-ollama-server.js';

export type { FakeLlmServer, FakeReply, RecordedRequest, ReplyScript, VisionRequest } from './fake-ollama-server.js';

/** Model endpoints: POST /v1beta/models/{model}:{method}. */
const MODEL_PATH = /^\/v1beta\/models\/([^/:?]+):(generateContent|streamGenerateContent|embedContent|batchEmbedContents)(\?|$)/;
/** models.get: GET /v1beta/models/{model}. */
const MODEL_GET_PATH = /^\/v1beta\/models\/([^/:?]+)(\?|$)/;
/** models.list: GET /v1beta/models. */
const MODEL_LIST_PATH = /^\/v1beta\/models(\?|$)/;

/** One model the fake serves. */
export interface FakeGeminiModel {
  name: string;
  inputTokenLimit?: number;
  supportedActions?: string[];
}

const TEXT_ACTIONS = ['generateContent', 'countTokens', 'createCachedContent', 'batchGenerateContent'];
/** Names Google serves today that do not rot: the -latest aliases, one dated model, the current embedding model. */
export const CURRENT_GEMINI_MODELS: FakeGeminiModel[] = [
  { name: 'gemini-flash-latest', inputTokenLimit: 1_048_576, supportedActions: TEXT_ACTIONS },
  { name: 'gemini-flash-lite-latest', inputTokenLimit: 1_048_576, supportedActions: TEXT_ACTIONS },
  { name: 'gemini-pro-latest', inputTokenLimit: 1_048_576, supportedActions: TEXT_ACTIONS },
  { name: 'gemini-2.5-flash', inputTokenLimit: 1_048_576, supportedActions: TEXT_ACTIONS },
  { name: 'gemini-embedding-001', inputTokenLimit: 2_048, supportedActions: ['embedContent', 'countTextTokens', 'countTokens', 'asyncBatchEmbedContent'] },
];

/** HTTP status → the google.rpc status name the real API puts in error bodies. */
const RPC_STATUS: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
};

export interface FakeGeminiOptions {
  /** Replies for generateContent / embedContent / batchEmbedContents. */
  replies?: ReplyScript;
  /** When set, a request whose x-goog-api-key differs is refused as the real API does (400 API_KEY_INVALID). */
  apiKey?: string;
  /** What models.list and models.get report (default CURRENT_GEMINI_MODELS). */
  models?: FakeGeminiModel[];
  /** Like Google: any model not in `models` answers 404 NOT_FOUND on every endpoint. Else models.get answers for any name. */
  currentOnly?: boolean;
}

/**
 * The model and method a request addressed, e.g. {model: 'gemini-flash-latest', method: 'generateContent'};
 * a streamed request (streamGenerateContent) is method 'generateContent' with `stream: true`.
 */
export function geminiRoute(request: RecordedRequest): { model: string; method: string; stream?: boolean } | undefined {
  const match = MODEL_PATH.exec(request.path);
  if (!match) return undefined;
  const model = decodeURIComponent(match[1]!);
  return match[2] === 'streamGenerateContent' ? { model, method: 'generateContent', stream: true } : { model, method: match[2]! };
}

/** Google's answer for a model it does not serve. */
export function geminiModelNotFound(model: string, method = 'generateContent'): FakeReply {
  return geminiError(
    404,
    `models/${model} is not found for API version v1beta, or is not supported for ${method}. Call ListModels to see the list of available models and their supported methods.`,
  );
}

/** Starts a fake Gemini API; pass its `url` as base_url or GEMINI_BASE_URL. */
export function startFakeGeminiServer(options: FakeGeminiOptions = {}): Promise<FakeLlmServer> {
  const { replies, apiKey, models = CURRENT_GEMINI_MODELS, currentOnly = false } = options;
  const find = (name: string) => models.find((m) => m.name === name);
  const describe = (m: FakeGeminiModel) => ({
    name: `models/${m.name}`,
    version: '001',
    displayName: m.name,
    inputTokenLimit: m.inputTokenLimit ?? 1_048_576,
    outputTokenLimit: 65_536,
    supportedActions: m.supportedActions ?? TEXT_ACTIONS,
  });
  return startScriptedServer(
    {
      isModelRequest: (request) => request.method === 'POST' && geminiRoute(request) !== undefined,
      refuse: (request) => {
        if (apiKey !== undefined && request.headers['x-goog-api-key'] !== apiKey) {
          return geminiError(400, 'API key not valid. Please pass a valid API key.', { reason: 'API_KEY_INVALID' });
        }
        const route = geminiRoute(request);
        if (currentOnly && route && !find(route.model)) return geminiModelNotFound(route.model, route.method);
        return undefined;
      },
      toStream: (request, reply) => (geminiRoute(request)?.stream ? geminiFrames(reply.body) : undefined),
      builtIn: (request) => {
        if (request.method !== 'GET') return undefined;
        if (MODEL_LIST_PATH.test(request.path)) return { body: { models: models.map(describe) } };
        const get = MODEL_GET_PATH.exec(request.path);
        if (!get) return undefined;
        const name = decodeURIComponent(get[1]!);
        const model = find(name) ?? (currentOnly ? undefined : { name });
        return model ? { body: describe(model) } : geminiError(404, `models/${name} is not found for API version v1beta.`);
      },
      errorBody: (status, message) => geminiError(status, message).body,
    },
    replies,
  );
}

/** A generateContent answer holding `text`. */
export function geminiTextReply(
  text: string,
  usage: { promptTokens?: number; completionTokens?: number; thoughtsTokens?: number; finishReason?: string } = {},
): FakeReply {
  const { promptTokens = 11, completionTokens = 7, thoughtsTokens, finishReason = 'STOP' } = usage;
  return {
    body: {
      candidates: [{ content: { role: 'model', parts: [{ text }] }, finishReason, index: 0 }],
      usageMetadata: {
        promptTokenCount: promptTokens,
        candidatesTokenCount: completionTokens,
        ...(thoughtsTokens !== undefined ? { thoughtsTokenCount: thoughtsTokens } : {}),
        totalTokenCount: promptTokens + completionTokens + (thoughtsTokens ?? 0),
      },
      modelVersion: 'fake-gemini',
    },
  };
}

/** A generateContent answer turned into the SSE events of streamGenerateContent: one per piece, the last with the finish reason. */
function geminiFrames(body: any): FakeReply | undefined {
  const candidate = body?.candidates?.[0];
  const parts: Array<{ text?: string }> = candidate?.content?.parts ?? [];
  if (!candidate || parts.some((p) => typeof p.text !== 'string')) return undefined;
  const text = parts.map((p) => p.text).join('');
  const chunks = pieces(text);
  return {
    headers: { 'content-type': 'text/event-stream' },
    frames: chunks.map((piece, i) => {
      const last = i === chunks.length - 1;
      return geminiSseEvent(piece, last ? { finishReason: candidate.finishReason, usageMetadata: body.usageMetadata } : {});
    }),
  };
}

/** One SSE event of streamGenerateContent holding `text`; pass `finishReason` (and usage) on the last one. */
export function geminiSseEvent(text: string, end: { finishReason?: string; usageMetadata?: unknown } = {}): string {
  const candidate = { content: { role: 'model', parts: [{ text }] }, index: 0, ...(end.finishReason ? { finishReason: end.finishReason } : {}) };
  const chunk = { candidates: [candidate], ...(end.usageMetadata ? { usageMetadata: end.usageMetadata } : {}), modelVersion: 'fake-gemini' };
  return `data: ${JSON.stringify(chunk)}\r\n\r\n`;
}

/** A batchEmbedContents answer (what the SDK calls for every embedContent on the Gemini API). */
export function geminiBatchEmbedReply(vectors: number[][]): FakeReply {
  return { body: { embeddings: vectors.map((values) => ({ values })) } };
}

/** A single embedContent answer. */
export function geminiEmbedReply(vector: number[]): FakeReply {
  return { body: { embedding: { values: vector } } };
}

/** A Google API error answer; `retryDelay` (e.g. '2s') adds the RetryInfo a real 429 carries. */
export function geminiError(
  status: number,
  message: string,
  extra: { retryDelay?: string; reason?: string } = {},
): FakeReply {
  const details: unknown[] = [];
  if (extra.reason) {
    details.push({ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: extra.reason, domain: 'googleapis.com' });
  }
  if (extra.retryDelay) {
    details.push({ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: extra.retryDelay });
  }
  return {
    status,
    body: {
      error: {
        code: status,
        message,
        status: RPC_STATUS[status] ?? 'UNKNOWN',
        ...(details.length ? { details } : {}),
      },
    },
  };
}

/** The text parts and inline images (decoded from base64) of a generateContent request with inlineData, else undefined. */
export function geminiVisionRequest(request: RecordedRequest): VisionRequest | undefined {
  if (geminiRoute(request)?.method !== 'generateContent') return undefined; // streamed requests too
  const parts: Array<{ text?: string; inlineData?: { mimeType?: string; data?: string } }> = (request.body?.contents ?? []).flatMap(
    (content: { parts?: unknown[] }) => content.parts ?? [],
  );
  const images = parts.filter((p) => typeof p.inlineData?.data === 'string');
  if (images.length === 0) return undefined;
  return {
    prompt: parts.map((p) => p.text ?? '').join(''),
    images: images.map((p) => ({ ...(p.inlineData!.mimeType ? { mimeType: p.inlineData!.mimeType } : {}), data: Buffer.from(p.inlineData!.data!, 'base64') })),
  };
}

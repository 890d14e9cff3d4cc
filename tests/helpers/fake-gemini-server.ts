// A local HTTP server speaking the Gemini API's v1beta wire format (as @google/genai 2.x sends it) from a script of replies.
import {
  startScriptedServer,
  type FakeLlmServer,
  type FakeReply,
  type RecordedRequest,
  type ReplyScript,
  type VisionRequest,
} from './fake-ollama-server.js';

export type { FakeLlmServer, FakeReply, RecordedRequest, ReplyScript, VisionRequest } from './fake-ollama-server.js';

/** Model endpoints: POST /v1beta/models/{model}:{method}. */
const MODEL_PATH = /^\/v1beta\/models\/([^/:?]+):(generateContent|embedContent|batchEmbedContents)(\?|$)/;

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
}

/** The model and method a request addressed, e.g. {model: 'gemini-2.0-flash', method: 'generateContent'}. */
export function geminiRoute(request: RecordedRequest): { model: string; method: string } | undefined {
  const match = MODEL_PATH.exec(request.path);
  return match ? { model: decodeURIComponent(match[1]!), method: match[2]! } : undefined;
}

/** Starts a fake Gemini API; pass its `url` as base_url or GEMINI_BASE_URL. */
export function startFakeGeminiServer(options: FakeGeminiOptions = {}): Promise<FakeLlmServer> {
  const { replies, apiKey } = options;
  return startScriptedServer(
    {
      isModelRequest: (request) => request.method === 'POST' && geminiRoute(request) !== undefined,
      refuse: (request) =>
        apiKey !== undefined && request.headers['x-goog-api-key'] !== apiKey
          ? geminiError(400, 'API key not valid. Please pass a valid API key.', { reason: 'API_KEY_INVALID' })
          : undefined,
      builtIn: () => undefined,
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
  if (geminiRoute(request)?.method !== 'generateContent') return undefined;
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

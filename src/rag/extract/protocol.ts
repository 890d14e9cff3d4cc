// Messages between the extractor (host) and its parse worker thread.
import type { ExtractionResult } from '../types.js';
import type { ParseFormat } from './formats.js';
import type { FoundImage, LocalImageRef } from './image-placeholder.js';

/** Host → worker: parse these bytes. */
export interface ParseRequest {
  type: 'parse';
  id: number;
  format: ParseFormat;
  /** The file's bytes; the buffer is transferred, not copied. */
  bytes: Uint8Array;
  /** File name, for messages. */
  name: string;
  maxTextChars: number;
  /** Content-Type of a fetched body (its charset helps decode HTML), if any. */
  contentType?: string;
  /**
   * Set when a captioner is there: images are collected and placeholders marked with this nonce; with
   * `localFiles` (a file of the documents folder, not a fetched page) an HTML page's relative <img> are listed too.
   */
  images?: { nonce: string; localFiles: boolean };
  /** Also chunk the text structurally with these sizes, inside the same deadline and heap. */
  chunk?: { maxChars?: number; overlapChars?: number };
}

/** Worker → host, inside a ParseBatchReply: the outcome of one request, and the heap left behind (for recycling). */
export interface ParseReply {
  type: 'result';
  id: number;
  result: ExtractionResult;
  heapUsedMb: number;
  /** Images to caption (only with `images` in the request and an ok result); placeholders in the pages mark their places. */
  images?: FoundImage[];
  /** Image files an HTML page shows from beside it, for the host to read; their placeholders are in the pages. */
  localImages?: LocalImageRef[];
}

/** True when `value` looks like a ParseReply (the host trusts nothing that crosses the thread boundary blindly). */
function isParseReply(value: unknown): value is ParseReply {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Partial<ParseReply>;
  return v.type === 'result' && typeof v.id === 'number' && typeof v.heapUsedMb === 'number' && typeof v.result === 'object' && v.result !== null;
}

/**
 * Host → worker: parse these files one after another and answer once. Several small text files share one
 * message so that each does not pay a message round trip and leave the worker idle in between.
 */
export interface ParseBatch {
  type: 'batch';
  requests: ParseRequest[];
}

/** Worker → host: one ParseReply per request of a ParseBatch, in the same order. */
export interface ParseBatchReply {
  type: 'batch-result';
  replies: ParseReply[];
}

/** True when `value` is the reply to the requests with these ids: one valid ParseReply for each, in order. */
export function isParseBatchReply(value: unknown, ids: readonly number[]): value is ParseBatchReply {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Partial<ParseBatchReply>;
  if (v.type !== 'batch-result' || !Array.isArray(v.replies) || v.replies.length !== ids.length) return false;
  return v.replies.every((reply: unknown, i) => isParseReply(reply) && reply.id === ids[i]);
}

// Messages between the extractor (host) and its parse worker thread.
import type { ExtractionResult } from '../types.js';
import type { FileFormat } from './formats.js';
import type { FoundImage, LocalImageRef } from './image-placeholder.js';

/** A file of the documents folder, for the worker to check, read and hash itself (read-safely). */
export interface FileSource {
  /** The documents folder. */
  root: string;
  /** Absolute, or relative to `root`. */
  path: string;
  /** Larger files are refused as too_large. */
  maxBytes: number;
}

/**
 * Host → worker: parse a file. A `.url` file (format 'url') is only read: the reply carries the URL it names, for
 * the host to fetch.
 */
export interface ParseRequest {
  type: 'parse';
  id: number;
  /** Null for a file of an unsupported type: the worker checks its path (an unsafe one is reported as such), no more. */
  format: FileFormat | null;
  /** Bytes in hand (a fetched page; the buffer is transferred, not copied), or a file for the worker to read. */
  source: { bytes: Uint8Array } | { file: FileSource };
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
  /** Image files an HTML page shows from beside it, for the host to ask for; their placeholders are in the pages. */
  localImages?: LocalImageRef[];
  /** For a file source that was read: the folder it really lies in (symlinks resolved), where its local images are. */
  folder?: string;
  /** For a `.url` file: the http(s) URL it names (the result is then ok, with no pages). */
  url?: string;
}

/** True when `value` looks like a ParseReply (the host trusts nothing that crosses the thread boundary blindly). */
function isParseReply(value: unknown): value is ParseReply {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Partial<ParseReply>;
  return v.type === 'result' && typeof v.id === 'number' && typeof v.heapUsedMb === 'number' && typeof v.result === 'object' && v.result !== null;
}

/**
 * Host → worker: parse these files one after another and answer once. Several small text files share one
 * message so that each does not pay a message round trip and leave the worker idle in between. Once the files
 * read pass `maxBytes`, the rest are left for the host to send again (so a batch of big files can't outgrow a
 * file's deadline or heap).
 */
export interface ParseBatch {
  type: 'batch';
  requests: ParseRequest[];
  maxBytes: number;
}

/** Worker → host, inside a ParseBatchReply: a request of the batch that was not started. */
export interface DeferredReply {
  type: 'deferred';
  id: number;
}

/** Worker → host: one reply per request of a ParseBatch, in the same order. */
export interface ParseBatchReply {
  type: 'batch-result';
  replies: Array<ParseReply | DeferredReply>;
}

/** True when `value` is the reply to the requests with these ids: one valid reply for each, in order. */
export function isParseBatchReply(value: unknown, ids: readonly number[]): value is ParseBatchReply {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Partial<ParseBatchReply>;
  if (v.type !== 'batch-result' || !Array.isArray(v.replies) || v.replies.length !== ids.length) return false;
  return v.replies.every((reply: unknown, i) => (isParseReply(reply) || isDeferred(reply)) && reply.id === ids[i]);
}

function isDeferred(value: unknown): value is DeferredReply {
  return typeof value === 'object' && value !== null && (value as Partial<DeferredReply>).type === 'deferred' && typeof (value as Partial<DeferredReply>).id === 'number';
}

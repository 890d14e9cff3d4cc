// Reads a streamed model reply chunk by chunk: text progress, an idle limit between chunks, a size limit, cuts named.
import { causeMatching, errorMessage } from '../errors.js';
import { ResponseTooLargeError } from './bounded-fetch.js';
import { estimateReplyTokens } from './token-estimate.js';
import type { LlmProgress } from './types.js';

/**
 * Longest wait for the next chunk once the reply has started. The first chunk may take much longer (a local
 * model reads the whole prompt first); timeout_ms bounds that wait and the whole reply.
 */
export const STREAM_IDLE_TIMEOUT_MS = 60_000;
/** Most characters of reply text (1 Mi): hundreds of times any plan or caption; past it a model is repeating itself. */
export const MAX_REPLY_CHARS = 2 ** 20;

/** Knobs tests turn (no real waits); production uses the defaults. */
export interface StreamTuning {
  /** Default STREAM_IDLE_TIMEOUT_MS. */
  idleTimeoutMs?: number;
  /** Default MAX_REPLY_CHARS. */
  maxReplyChars?: number;
}

/** Why a streamed reply did not complete: it stalled, it was cut, or it grew too large. */
export class StreamFailure extends Error {
  constructor(
    readonly kind: 'stalled' | 'cut' | 'too_large',
    message: string,
    /** Characters of reply text that had arrived (0: nothing usable, safe to retry). */
    readonly receivedChars: number,
    options?: { cause?: unknown; partial?: string },
  ) {
    super(message, options);
    this.name = 'StreamFailure';
    this.partial = options?.partial ?? '';
  }

  /** The reply text that had arrived, so a caller can ask the model to go on from there. */
  readonly partial: string;
}

export interface ReadStreamOptions<T> {
  chunks: AsyncIterable<T>;
  /** The reply text a chunk adds. */
  textOf: (chunk: T) => string;
  /** The provider's completion-token count so far, if the chunk carries one. */
  tokensOf?: (chunk: T) => number | undefined;
  /** True when the chunk says the reply is complete (Ollama `done`, Gemini `finishReason`). */
  isFinal: (chunk: T) => boolean;
  /** Stops the underlying request (the stream then ends with an error). */
  stop: (reason: Error) => void;
  onProgress?: (progress: LlmProgress) => void;
  tuning?: StreamTuning;
}

/**
 * Collects a streamed reply, telling `onProgress` each piece of text. Ends with StreamFailure when the stream
 * goes quiet for `idleTimeoutMs` after it started, ends before its final chunk or with a network error, or
 * passes `maxReplyChars`. Errors the provider sends before the stream starts are thrown as they are.
 * @returns the text and the last chunk (which holds the usage counts).
 */
export async function readStream<T>(options: ReadStreamOptions<T>): Promise<{ text: string; last: T | undefined }> {
  const { chunks, textOf, tokensOf, isFinal, stop, onProgress, tuning = {} } = options;
  const { idleTimeoutMs = STREAM_IDLE_TIMEOUT_MS, maxReplyChars = MAX_REPLY_CHARS } = tuning;
  const iterator = chunks[Symbol.asyncIterator]();
  let text = '';
  let last: T | undefined;
  let finished = false;
  let timer: NodeJS.Timeout | undefined;
  try {
    for (;;) {
      const next = iterator.next();
      // Before the first chunk only timeout_ms applies; afterwards each wait is bounded too.
      const result = last === undefined ? await next : await raceIdle(next, idleTimeoutMs, (t) => (timer = t));
      clearTimeout(timer);
      if (result.done) break;
      last = result.value;
      const delta = textOf(result.value);
      if (delta) {
        text += delta;
        if (text.length > maxReplyChars) {
          throw new StreamFailure('too_large', tooLargeMessage(maxReplyChars), text.length);
        }
        onProgress?.({ kind: 'text', delta, completionTokens: tokensOf?.(result.value) ?? estimateReplyTokens(text) });
      }
      if (isFinal(result.value)) finished = true;
    }
  } catch (err) {
    clearTimeout(timer);
    const found = asStreamFailure(err, text.length);
    if (!found) throw err;
    const failure = found.kind === 'too_large' ? found : new StreamFailure(found.kind, found.message, found.receivedChars, { cause: found.cause, partial: text });
    stop(failure);
    void iterator.return?.().catch(() => undefined);
    throw failure;
  }
  if (!finished) {
    throw new StreamFailure('cut', cutMessage(text.length, 'the stream ended before the reply was complete'), text.length, { partial: text });
  }
  return { text, last };
}

const IDLE = Symbol('idle');

async function raceIdle<R>(next: Promise<R>, idleMs: number, keep: (timer: NodeJS.Timeout) => void): Promise<R> {
  const idle = new Promise<typeof IDLE>((resolve) => keep(setTimeout(() => resolve(IDLE), idleMs)));
  const result = await Promise.race([next, idle]);
  if (result === IDLE) {
    throw new StreamFailure('stalled', `the model stopped sending for ${Math.round(idleMs / 1000)} s in the middle of its reply`, -1);
  }
  return result;
}

/** A failure met while reading the stream, as a StreamFailure; undefined for errors to pass on (HTTP errors with a status). */
function asStreamFailure(err: unknown, receivedChars: number): StreamFailure | undefined {
  if (err instanceof StreamFailure) {
    return err.receivedChars >= 0 ? err : new StreamFailure(err.kind, err.message, receivedChars, { cause: err.cause });
  }
  if (hasStatus(err)) return undefined;
  if (causeMatching(err, (e) => e instanceof ResponseTooLargeError)) {
    return new StreamFailure('too_large', tooLargeMessage(MAX_REPLY_CHARS), receivedChars, { cause: err });
  }
  return new StreamFailure('cut', cutMessage(receivedChars, errorMessage(err)), receivedChars, { cause: err });
}

function hasStatus(err: unknown): boolean {
  const e = err as { status?: unknown; status_code?: unknown } | null;
  return typeof e?.status === 'number' || typeof e?.status_code === 'number';
}

function tooLargeMessage(limit: number): string {
  return `the reply passed ${limit.toLocaleString('en-US')} characters and was stopped (a model repeating itself?)`;
}

function cutMessage(receivedChars: number, why: string): string {
  return receivedChars > 0 ? `the reply was cut off after ${receivedChars} characters (${why})` : `the reply was cut off before any text (${why})`;
}

/** How the retry loop treats a StreamFailure: retried only when nothing usable had arrived; undefined for other errors. */
export function describeStreamFailure(err: unknown): { retryable: boolean; message: string; reason: string } | undefined {
  if (!(err instanceof StreamFailure)) return undefined;
  const nothingYet = err.receivedChars === 0 && err.kind !== 'too_large';
  const reason = err.kind === 'stalled' ? 'the reply stalled' : err.kind === 'cut' ? 'the reply was cut off' : 'reply too large';
  return { retryable: nothingYet, message: err.message, reason };
}

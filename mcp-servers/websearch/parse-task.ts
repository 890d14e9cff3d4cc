// The CPU-heavy half of both tools as one pure function: decode a fetched body, then read results or page text.
import { decodeText } from './decode-text.js';
import { cutText, extractPageText, normaliseWhitespace } from './page-text.js';
import { parseResultsPage, type ParsedResultsPage } from './search-results.js';

/** A body to parse, as posted to the parse worker (structured-clonable). */
export type ParseTask =
  | { kind: 'search'; bytes: Uint8Array; charset: string | undefined; maxResults: number }
  | {
      kind: 'page';
      bytes: Uint8Array;
      charset: string | undefined;
      mediaType: string;
      maxChars: number;
      bodyTruncated: boolean;
      maxBodyBytes: number;
    };

/** What a task produced. */
export type ParseOutcome = { kind: 'search'; page: ParsedResultsPage } | { kind: 'page'; text: string };

/** Media types read as plain text rather than parsed as HTML. */
const PLAIN_TEXT_TYPES = new Set(['text/plain', 'text/markdown', 'text/csv', 'application/json']);

/** Runs `task` in this thread. The server runs it in a worker (parse-in-worker.ts) so a pathological page can be stopped. */
export function runParseTask(task: ParseTask): ParseOutcome {
  const text = decodeText(Buffer.from(task.bytes.buffer, task.bytes.byteOffset, task.bytes.byteLength), task.charset);
  if (task.kind === 'search') return { kind: 'search', page: parseResultsPage(text, task.maxResults) };
  const pageText = PLAIN_TEXT_TYPES.has(task.mediaType) ? normaliseWhitespace(text) : extractPageText(text);
  return {
    kind: 'page',
    text: cutText(pageText, { maxChars: task.maxChars, bodyTruncated: task.bodyTruncated, maxBodyBytes: task.maxBodyBytes }),
  };
}

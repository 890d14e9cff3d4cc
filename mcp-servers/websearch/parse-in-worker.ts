// Runs a parse task in a worker thread with a time and memory limit, so a page built to choke the HTML parser
// (millions of nested elements) costs one killed worker instead of a frozen server.
import { Worker } from 'node:worker_threads';
import { builtPath } from '../../src/paths.js';
import type { ParseOutcome, ParseTask } from './parse-task.js';
import { formatDuration } from '../../src/net/safe-fetch.js';
import { WebFetchError } from '../../src/net/web-fetch-error.js';

/** Longest one page may take to parse, in milliseconds; an ordinary 2 MB page takes well under a second. */
export const DEFAULT_PARSE_TIMEOUT_MS = 5_000;

/** Heap of one parse worker, in MB: parsing 2 MB of HTML needs a few tens; a runaway page is stopped here. */
const PARSE_WORKER_HEAP_MB = 256;

/** Runs a parse task; the server's default, replaceable in tests by an in-thread runner. */
export type ParseRunner = (task: ParseTask) => Promise<ParseOutcome>;

/** The built worker file (found the same way from dist/, the bundle, or tests running the TypeScript source). */
function workerFile(): string {
  return builtPath('mcp-servers/websearch/parse-worker.js');
}

/**
 * A runner that parses each task in a fresh worker thread and terminates it after `timeoutMs`. Rejects with a
 * WebFetchError (code parse) when the worker is too slow, runs out of memory or fails.
 */
export function workerParseRunner({ timeoutMs = DEFAULT_PARSE_TIMEOUT_MS }: { timeoutMs?: number } = {}): ParseRunner {
  return (task) =>
    new Promise<ParseOutcome>((resolve, reject) => {
      const worker = new Worker(workerFile(), {
        workerData: task,
        resourceLimits: { maxOldGenerationSizeMb: PARSE_WORKER_HEAP_MB },
        stdout: true,
        stderr: false,
      });
      let settled = false;
      const settle = (outcome: () => void): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        outcome();
        void worker.terminate();
      };
      const timer = setTimeout(
        () => settle(() => reject(new WebFetchError('parse', `the page took longer than ${formatDuration(timeoutMs)} to read; it is too large or too deeply nested`))),
        timeoutMs,
      );
      worker.once('message', (outcome: ParseOutcome) => settle(() => resolve(outcome)));
      worker.once('error', (err) =>
        settle(() => reject(new WebFetchError('parse', `the page could not be read: ${err.message}`, { cause: err }))),
      );
      worker.once('exit', (code) =>
        settle(() => reject(new WebFetchError('parse', `the page could not be read (the parser stopped with code ${code})`))),
      );
    });
}

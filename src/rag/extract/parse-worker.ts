// Host-side handle on one parse worker thread: heap-limited, killed at a batch's deadline, replaced when it dies.
import { Worker } from 'node:worker_threads';
import type { ExtractionResult } from '../types.js';
import type { FoundImage, LocalImageRef } from './image-placeholder.js';
import { WORKER_TERMINATE_WAIT_MS } from './limits.js';
import { isParseBatchReply, type ParseBatch, type ParseReply, type ParseRequest } from './protocol.js';

/** What the worker made of one file. */
export interface ParsedFile {
  result: ExtractionResult;
  heapUsedMb: number;
  images: FoundImage[];
  localImages: LocalImageRef[];
  /** The folder a file of the documents folder really lies in, once the worker read it. */
  folder?: string;
  /** The URL a `.url` file names. */
  url?: string;
}

/** How one batch ended, from the host's side. */
export type ParseJobOutcome =
  /** One entry per request, in order; null for a request the worker left for later (see ParseBatch.maxBytes). */
  | { kind: 'results'; files: Array<ParsedFile | null> }
  /** The deadline passed; the worker has been terminated. */
  | { kind: 'timeout' }
  /** The worker ended (crash, heap limit) before replying. */
  | { kind: 'died'; outOfMemory: boolean; detail: string }
  /** The worker ended before it started these files (one sent ahead of them failed): they may be sent again. */
  | { kind: 'not_started' };

interface PendingJob {
  ids: number[];
  timeoutMs: number;
  /** Set once the worker is on this job (it is first in line). */
  timer?: NodeJS.Timeout;
  settle(outcome: ParseJobOutcome): void;
}

/** A worker_thread running extract-worker.js, with its own V8 heap limit and an empty environment. */
export class ParseWorker {
  /** Files sent to this worker that a library parses (not plain text), for recycling. */
  parserFiles = 0;
  /** Jobs sent and not yet answered, in the order the worker takes them; the first is being parsed. */
  private readonly pending: PendingJob[] = [];
  private dead = false;
  private terminating: Promise<unknown> | null = null;

  private constructor(private readonly worker: Worker) {
    worker.on('message', (message: unknown) => {
      const job = this.pending[0];
      if (!job || !isParseBatchReply(message, job.ids)) return;
      job.settle({ kind: 'results', files: message.replies.map((reply) => (reply.type === 'deferred' ? null : parsedFile(reply))) });
    });
    worker.on('error', (err: Error & { code?: string }) => {
      this.dead = true;
      this.endJobs({ kind: 'died', outOfMemory: err.code === 'ERR_WORKER_OUT_OF_MEMORY', detail: err.message });
    });
    worker.on('exit', (code) => {
      this.dead = true;
      this.endJobs({ kind: 'died', outOfMemory: false, detail: `the worker exited with code ${code}` });
    });
    // The worker's console is not ours (our stdout may be an MCP protocol stream), so it is piped and dropped.
    // Destroyed rather than drained: a live stdio pipe keeps the host process alive even after unref().
    worker.stdout.destroy();
    worker.stderr.destroy();
    // An idle worker must not keep the host alive; a running parse is kept alive by its deadline timer.
    worker.unref();
  }

  /** Starts a worker running the built file at `path`, its old-generation heap capped at `heapMb`. */
  static start(path: string, heapMb: number): ParseWorker {
    return new ParseWorker(
      new Worker(path, {
        resourceLimits: { maxOldGenerationSizeMb: heapMb },
        // The host's own flags (e.g. --input-type, --no-node-snapshot) are not for this thread; some make it fail to start.
        execArgv: [],
        env: {},
        stdout: true,
        stderr: true,
      }),
    );
  }

  get alive(): boolean {
    return !this.dead && this.terminating === null;
  }

  get threadId(): number {
    return this.worker.threadId;
  }

  /**
   * Sends the files in one message and waits for their outcomes, at most `timeoutMs` for all of them from when the
   * worker gets to them (jobs sent before are parsed first): past that the worker is terminated (which interrupts
   * even a busy parser) and the outcome is a timeout. Files past `maxBytes` read are left for later. Never rejects.
   * Each request's buffer of bytes in hand moves to the worker (no copy): the caller gives it up, and no two may share one.
   */
  run(requests: ParseRequest[], timeoutMs: number, maxBytes = Infinity): Promise<ParseJobOutcome> {
    return new Promise<ParseJobOutcome>((resolve) => {
      if (!this.alive) {
        resolve({ kind: 'died', outOfMemory: false, detail: 'the worker had already ended' });
        return;
      }
      const job: PendingJob = {
        ids: requests.map((r) => r.id),
        timeoutMs,
        settle: (outcome) => {
          const at = this.pending.indexOf(job);
          if (at < 0) return;
          this.pending.splice(at, 1);
          clearTimeout(job.timer);
          // The worker moves on to the next job: its time starts now.
          if (at === 0) this.startClock();
          resolve(outcome);
        },
      };
      this.pending.push(job);
      this.startClock();
      try {
        const batch: ParseBatch = { type: 'batch', requests, maxBytes };
        this.worker.postMessage(batch, requests.flatMap(({ source }) => ('bytes' in source ? [source.bytes.buffer as ArrayBuffer] : [])));
      } catch (err) {
        job.settle({ kind: 'died', outOfMemory: false, detail: `the file could not be sent to the worker (${String(err)})` });
      }
    });
  }

  /** Starts the deadline of the job the worker is on, once. */
  private startClock(): void {
    const job = this.pending[0];
    if (!job || job.timer) return;
    job.timer = setTimeout(() => {
      void this.terminate();
      this.endJobs({ kind: 'timeout' });
    }, job.timeoutMs);
  }

  /** The job being parsed ends with `outcome`; the jobs behind it were never started. */
  private endJobs(outcome: ParseJobOutcome): void {
    const [current, ...waiting] = this.pending;
    for (const job of waiting) job.settle({ kind: 'not_started' });
    current?.settle(outcome);
  }

  /** Stops the worker; waits for the thread at most WORKER_TERMINATE_WAIT_MS. */
  terminate(): Promise<void> {
    this.terminating ??= this.worker.terminate().catch(() => undefined);
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, WORKER_TERMINATE_WAIT_MS);
      timer.unref();
    });
    return Promise.race([this.terminating.then(() => undefined), bound]).finally(() => clearTimeout(timer));
  }
}

function parsedFile(reply: ParseReply): ParsedFile {
  return {
    result: reply.result,
    heapUsedMb: reply.heapUsedMb,
    images: Array.isArray(reply.images) ? reply.images : [],
    localImages: Array.isArray(reply.localImages) ? reply.localImages : [],
    ...(typeof reply.folder === 'string' ? { folder: reply.folder } : {}),
    ...(typeof reply.url === 'string' ? { url: reply.url } : {}),
  };
}

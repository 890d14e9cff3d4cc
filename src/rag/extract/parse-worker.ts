// Host-side handle on one parse worker thread: heap-limited, killed at a file's deadline, replaced when it dies.
import { Worker } from 'node:worker_threads';
import type { ExtractionResult } from '../types.js';
import type { FoundImage, LocalImageRef } from './image-placeholder.js';
import { WORKER_TERMINATE_WAIT_MS } from './limits.js';
import { isParseReply, type ParseRequest } from './protocol.js';

/** How one parse ended, from the host's side. */
export type ParseJobOutcome =
  | { kind: 'result'; result: ExtractionResult; heapUsedMb: number; images: FoundImage[]; localImages: LocalImageRef[] }
  /** The deadline passed; the worker has been terminated. */
  | { kind: 'timeout' }
  /** The worker ended (crash, heap limit) before replying. */
  | { kind: 'died'; outOfMemory: boolean; detail: string };

interface PendingJob {
  id: number;
  settle(outcome: ParseJobOutcome): void;
}

/** A worker_thread running extract-worker.js, with its own V8 heap limit and an empty environment. */
export class ParseWorker {
  /** Files sent to this worker, for recycling. */
  files = 0;
  private pending: PendingJob | null = null;
  private dead = false;
  private terminating: Promise<unknown> | null = null;

  private constructor(private readonly worker: Worker) {
    worker.on('message', (message: unknown) => {
      if (!isParseReply(message) || message.id !== this.pending?.id) return;
      this.pending.settle({ kind: 'result', result: message.result, heapUsedMb: message.heapUsedMb, images: Array.isArray(message.images) ? message.images : [],
        localImages: Array.isArray(message.localImages) ? message.localImages : [],
      });
    });
    worker.on('error', (err: Error & { code?: string }) => {
      this.dead = true;
      const outOfMemory = err.code === 'ERR_WORKER_OUT_OF_MEMORY';
      this.pending?.settle({ kind: 'died', outOfMemory, detail: err.message });
    });
    worker.on('exit', (code) => {
      this.dead = true;
      this.pending?.settle({ kind: 'died', outOfMemory: false, detail: `the worker exited with code ${code}` });
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
   * Sends one file and waits for its outcome, at most `timeoutMs`: past that the worker is terminated
   * (which interrupts even a busy parser) and the outcome is a timeout. Never rejects.
   */
  run(request: ParseRequest, timeoutMs: number): Promise<ParseJobOutcome> {
    return new Promise<ParseJobOutcome>((resolve) => {
      if (!this.alive) {
        resolve({ kind: 'died', outOfMemory: false, detail: 'the worker had already ended' });
        return;
      }
      const timer = setTimeout(() => {
        void this.terminate();
        settle({ kind: 'timeout' });
      }, timeoutMs);
      const settle = (outcome: ParseJobOutcome) => {
        if (this.pending?.id !== request.id) return;
        this.pending = null;
        clearTimeout(timer);
        resolve(outcome);
      };
      this.pending = { id: request.id, settle };
      try {
        // The bytes move to the worker (no copy); the caller gives up its buffer.
        this.worker.postMessage(request, [request.bytes.buffer as ArrayBuffer]);
      } catch (err) {
        settle({ kind: 'died', outOfMemory: false, detail: `the file could not be sent to the worker (${String(err)})` });
      }
    });
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

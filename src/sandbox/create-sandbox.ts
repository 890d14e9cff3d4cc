// The sandbox the agent loop uses: prepares the code, runs it on a reusable worker process, replaces broken workers.
import { errorMessage } from '../errors.js';
import { builtPath } from '../paths.js';
import { resolveLimits, WORKER_MAX_RUNS } from './limits.js';
import { withSkills } from './plan-skills.js';
import { cancelledResult, runOnWorker } from './run-on-worker.js';
import type { Sandbox, SandboxResult, SandboxRunOptions } from './types.js';
import { WorkerProcess } from './worker-process.js';

/** Options of createSandbox(). */
export interface CreateSandboxOptions {
  /** Built worker entry; default dist/src/sandbox/worker.js. */
  workerPath?: string;
}

/**
 * A Sandbox whose isolates live in a disposable worker process (DESIGN §3.1). The worker is started
 * on the first run (or by prestart()), reused while healthy, and SIGKILLed and replaced when it overruns its deadline
 * by more than WORKER_OVERRUN_GRACE_MS, dies, reports a catastrophic error or grows too big. Each run
 * gets a fresh isolate. Runs are serialised. `run()` never throws.
 *
 * Policy on stray rejections: the outcome of a run is the outcome of solve(). A promise rejection
 * nobody awaited (`Promise.reject(x)` left floating, an un-awaited tool call that fails) never fails a
 * run whose solve() resolved, and never adds to its error.
 */
export function createSandbox({ workerPath = builtPath('src/sandbox/worker.js') }: CreateSandboxOptions = {}): ProcessSandbox {
  return new ProcessSandbox(workerPath);
}

/** The Sandbox createSandbox() returns; see there. */
export class ProcessSandbox implements Sandbox {
  private worker: WorkerProcess | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private nextRunId = 1;
  private closed = false;

  constructor(private readonly workerPath: string) {}

  /** Process id of the current worker, if one is running (for tests and diagnostics). */
  get workerPid(): number | undefined {
    return this.worker?.alive ? this.worker.pid : undefined;
  }

  /** Runs after the runs before it; one whose signal aborts while it waits settles at once and never starts. */
  run(options: SandboxRunOptions): Promise<SandboxResult> {
    let started = false;
    const result = this.queue.then(() => {
      started = true;
      return this.runNow(options);
    });
    this.queue = result;
    const { signal } = options;
    if (!signal) return result;
    // A started run is awaited to its end (runOnWorker stops it promptly); a waiting one is dropped at once.
    return new Promise((resolve) => {
      const onAbort = () => {
        if (!started) resolve(cancelledResult());
      };
      signal.addEventListener('abort', onAbort, { once: true });
      void result.then((value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      });
    });
  }

  /** Starts the worker now (at most one; none once closed): its start-up then overlaps the model's reply. */
  prestart(): void {
    if (!this.closed) this.acquireWorker();
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.queue;
    this.retire();
  }

  private async runNow(options: SandboxRunOptions): Promise<SandboxResult> {
    const startedAt = performance.now();
    const elapsed = () => Math.round(performance.now() - startedAt);
    try {
      if (this.closed) {
        return { ok: false, error: { kind: 'crash', message: 'The sandbox was closed; no code can run.' }, logs: [], calls: [], ms: elapsed() };
      }
      if (options.signal?.aborted) return cancelledResult();
      const limits = resolveLimits(options.limits);
      const worker = this.acquireWorker();
      worker.runs++;
      const { result, retire } = await runOnWorker({ worker, runId: this.nextRunId++, code: withSkills(options.code, options.skills), options, limits, startedAt });
      if (retire || worker.runs >= WORKER_MAX_RUNS) this.retire();
      return { ...result, code: options.code };
    } catch (err) {
      // Our own bug, not the model's; still reported as a result because run() never throws.
      this.retire();
      return { ok: false, error: { kind: 'crash', message: `The sandbox failed: ${errorMessage(err)}` }, logs: [], calls: [], ms: elapsed() };
    }
  }

  private acquireWorker(): WorkerProcess {
    if (!this.worker?.alive) this.worker = WorkerProcess.spawn(this.workerPath);
    return this.worker;
  }

  private retire(): void {
    this.worker?.kill();
    this.worker = null;
  }
}


// A pool of worker-backed sandboxes, so concurrent questions (`cortex serve`, `cortex mcp`) run their plans side by side.
import { createSandbox, type CreateSandboxOptions, type ProcessSandbox } from './create-sandbox.js';
import { cancelledResult } from './run-on-worker.js';
import type { Sandbox, SandboxResult, SandboxRunOptions } from './types.js';

/** Upper bound on the pool size: each worker is a Node process of roughly 40 MB. */
const MAX_SANDBOX_WORKERS = 32;

/** Options of createSandboxPool(). */
export interface SandboxPoolOptions extends CreateSandboxOptions {
  /** Worker processes at most (1..MAX_SANDBOX_WORKERS); each is started on first need. */
  size: number;
}

/**
 * A Sandbox that runs each plan on an idle createSandbox() instance, starting up to `size` of them; when all
 * are busy a run waits for the next to free up. The waiting list is bounded by the callers: the server admits
 * at most `serve.max_concurrent` questions, each with one plan running at a time. A run whose signal aborts while
 * it waits leaves the list at once (settling as cancelled). `run()` never throws.
 */
export function createSandboxPool({ size, ...options }: SandboxPoolOptions): Sandbox {
  const limit = Math.max(1, Math.min(MAX_SANDBOX_WORKERS, Math.floor(size)));
  const all: ProcessSandbox[] = [];
  const idle: ProcessSandbox[] = [];
  const waiting: Array<(sandbox: ProcessSandbox) => void> = [];
  let closed = false;

  /** An idle sandbox, or null when `signal` aborted first (the run is dropped from the waiting list). */
  const acquire = (signal: AbortSignal | undefined): Promise<ProcessSandbox | null> => {
    const free = idle.pop();
    if (free) return Promise.resolve(free);
    if (all.length < limit) {
      const sandbox = createSandbox(options);
      all.push(sandbox);
      return Promise.resolve(sandbox);
    }
    return new Promise((resolve) => {
      const take = (sandbox: ProcessSandbox) => {
        signal?.removeEventListener('abort', drop);
        resolve(sandbox);
      };
      const drop = () => {
        const at = waiting.indexOf(take);
        if (at >= 0) waiting.splice(at, 1);
        resolve(null);
      };
      waiting.push(take);
      signal?.addEventListener('abort', drop, { once: true });
    });
  };
  const release = (sandbox: ProcessSandbox) => {
    const next = waiting.shift();
    if (next) next(sandbox);
    else idle.push(sandbox);
  };

  return {
    async run(runOptions: SandboxRunOptions): Promise<SandboxResult> {
      if (closed) return { ok: false, error: { kind: 'crash', message: 'The sandbox was closed; no code can run.' }, logs: [], calls: [], ms: 0 };
      if (runOptions.signal?.aborted) return cancelledResult();
      const sandbox = await acquire(runOptions.signal);
      if (!sandbox) return cancelledResult();
      try {
        return await sandbox.run(runOptions);
      } finally {
        release(sandbox);
      }
    },
    prestart(): void {
      if (closed || all.length > 0) return;
      const sandbox = createSandbox(options);
      all.push(sandbox);
      idle.push(sandbox);
      sandbox.prestart();
    },
    async close(): Promise<void> {
      closed = true;
      await Promise.all(all.map((sandbox) => sandbox.close()));
    },
  };
}

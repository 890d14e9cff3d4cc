// Worker side of one run: a fresh isolate, the bootstrap, the deadline, and a report of how it ended.
import { writeSync } from 'node:fs';
import { ISOLATE_BOOTSTRAP_SOURCE, type BootstrapConfig } from './isolate-bootstrap.js';
import { ISOLATE_SETTLE_GRACE_MS, MAX_ERROR_CHARS, MAX_LOG_CHARS, MAX_LOG_LINES, MAX_TOOL_ARGS_CHARS } from './limits.js';
import type { Context, Isolate, IsolatedVm } from './load-ivm.js';
import { CALL_MODES, CATASTROPHIC_MARKER, type CallMode, type RunRequest, type WorkerErrorKind, type WorkerMessage, type WorkerOutcome } from './protocol.js';
import { PausableDeadline } from '../time/pausable-deadline.js';

/** How often the worker checks its resident size while a run is in flight. */
const RSS_CHECK_INTERVAL_MS = 50;
/** Growth allowed during a run: isolated-vm warns a hostile isolate can use 2–3× its limit, plus fixed overhead. */
const RSS_HEADROOM_PER_LIMIT = 4;
const RSS_HEADROOM_MB = 128;

type Send = (message: WorkerMessage) => void;

/** A run in progress: the worker routes tool replies and cancels to it. */
export interface ActiveRun {
  readonly runId: number;
  deliver(callId: number, reply: string): void;
  cancel(): void;
  /** Stops the deadline's clock (the host is waiting for the user to approve a call). */
  pauseDeadline(): void;
  /** Restarts it with the time that was left. */
  resumeDeadline(): void;
  /** Settles with the `done` message once the run is over and its isolate disposed. */
  readonly finished: Promise<Extract<WorkerMessage, { type: 'done' }>>;
}

/** An isolate nothing has run in, and its context on the way, made for one run (worker.ts makes the next while idle). */
export interface FreshIsolate {
  isolate: Isolate;
  context: Promise<Context>;
  memoryMb: number;
}

/** Makes an isolate with a heap of `memoryMb` and starts making its context. @throws when isolated-vm cannot. */
export function freshIsolate(ivm: IsolatedVm, memoryMb: number): FreshIsolate {
  const isolate = new ivm.Isolate({
    memoryLimit: memoryMb,
    // isolated-vm's advice after a catastrophic error is to end the process; the host sees the marker and the exit.
    onCatastrophicError: (message) => {
      try { writeSync(2, `${CATASTROPHIC_MARKER} ${message}\n`); } finally { process.kill(process.pid, 'SIGKILL'); }
    },
  });
  const context = isolate.createContext();
  // A context that could not be made is reported by the run that awaits it; until then it is nobody's rejection.
  context.catch(() => undefined);
  return { isolate, context, memoryMb };
}

/**
 * Starts a run of `request` in `fresh` (default: a new isolate made now), which must have its memory limit and must
 * serve no other run. Never throws; every ending becomes a `done` message.
 */
export function startIsolateRun(ivm: IsolatedVm, request: RunRequest, send: Send, fresh: FreshIsolate = freshIsolate(ivm, request.memoryMb)): ActiveRun {
  const pending = new Map<number, (reply: string) => void>();
  let nextCallId = 0;
  let endedBy: 'timeout' | 'cancelled' | 'memory' | null = null;
  let settle!: (outcome: WorkerOutcome) => void;
  const outcome = new Promise<WorkerOutcome>((resolve) => { settle = resolve; });

  const { isolate } = fresh;
  const stop = (reason: 'timeout' | 'cancelled' | 'memory') => {
    if (endedBy) return;
    endedBy = reason;
    disposeQuietly(isolate);
    settle({ ok: false, kind: reason, detail: '' });
  };
  // The deadline stands still while the host waits for a person (one pause at a time: the host sends pause, then resume).
  const deadline = new PausableDeadline({ ms: request.timeoutMs });
  deadline.signal.addEventListener('abort', () => stop('timeout'), { once: true });
  let resumeDeadline: (() => void) | null = null;
  // WebAssembly memories live outside the isolate's heap limit (a 4 GB one can be created and filled),
  // so the process's own resident size is watched too. isolated-vm disposing the isolate for its memory
  // limit is caught here as well, for the case where no pending promise would report it.
  const rssLimitBytes = process.memoryUsage.rss() + (RSS_HEADROOM_PER_LIMIT * request.memoryMb + RSS_HEADROOM_MB) * 2 ** 20;
  const watchdog = setInterval(() => {
    if (isolate.isDisposed || process.memoryUsage.rss() > rssLimitBytes) stop('memory');
  }, RSS_CHECK_INTERVAL_MS);

  const callFn = (name: unknown, argsJson: unknown, mode: unknown): Promise<string> => {
    if (typeof name !== 'string' || typeof argsJson !== 'string' || !CALL_MODES.includes(mode as CallMode)) {
      return Promise.resolve(JSON.stringify({ ok: false, kind: 'tool_error', message: 'Malformed tool call.' }));
    }
    const callId = nextCallId++;
    send({ type: 'toolCall', runId: request.runId, callId, name, argsJson, mode: mode as CallMode });
    return new Promise((resolve) => pending.set(callId, resolve));
  };
  const logFn = (line: unknown) => {
    if (typeof line === 'string' && !endedBy) send({ type: 'log', runId: request.runId, line: line.slice(0, MAX_LOG_CHARS) });
  };
  const doneFn = (ok: unknown, kind: unknown, text: unknown) => {
    const detail = typeof text === 'string' ? text : '';
    if (ok === true) settle({ ok: true, value: detail.slice(0, request.maxOutputChars + 1) });
    else settle({ ok: false, kind: isolateErrorKind(kind), detail: detail.slice(0, MAX_ERROR_CHARS + 1) });
  };
  const refs = [new ivm.Reference(callFn), new ivm.Reference(logFn), new ivm.Reference(doneFn)];
  const config: BootstrapConfig = {
    code: request.code,
    toolNames: request.toolNames,
    maxOutputChars: request.maxOutputChars,
    // types.ts: maxOutputChars caps the logs too; MAX_LOG_CHARS is the ceiling whatever the config says.
    maxLogChars: Math.min(MAX_LOG_CHARS, request.maxOutputChars),
    maxLogLines: MAX_LOG_LINES,
    maxArgChars: MAX_TOOL_ARGS_CHARS,
    maxErrorChars: MAX_ERROR_CHARS,
  };

  let evalSettled = false;
  let bootstrapStarted = false;
  const evaluation = (async () => {
    const context = await fresh.context;
    bootstrapStarted = true;
    await context.evalClosure(ISOLATE_BOOTSTRAP_SOURCE, [...refs, new ivm.ExternalCopy(config).copyInto()], {
      // Catches synchronous loops in the first task early; awaited work is covered by the deadline above.
      timeout: request.timeoutMs,
      filename: 'file:///sandbox/bootstrap.js',
      result: { promise: true, copy: true },
    });
  })();
  evaluation.then(
    () => undefined,
    (err: unknown) => {
      const message = err instanceof Error ? err.message : String(err);
      if (endedBy) return;
      if (/memory limit/i.test(message) || isolate.isDisposed) settle({ ok: false, kind: 'memory', detail: message });
      else if (/timed out/i.test(message)) stop('timeout');
      else if (!bootstrapStarted) settle({ ok: false, kind: 'crash', detail: `the isolate could not be set up: ${message}` });
      // Anything else is a promise rejection nobody handled; by policy it does not decide the run.
    },
  ).finally(() => { evalSettled = true; });

  let over = false;
  const finished = outcome.then(async (result) => {
    over = true;
    deadline.dispose();
    clearInterval(watchdog);
    disposeQuietly(isolate);
    // Bounded by ISOLATE_SETTLE_GRACE_MS: a thread still spinning after dispose (a looping Proxy being copied) never settles.
    await Promise.race([evaluation.catch(() => undefined), new Promise((r) => setTimeout(r, ISOLATE_SETTLE_GRACE_MS))]);
    for (const ref of refs) ref.release();
    pending.clear();
    return {
      type: 'done' as const,
      runId: request.runId,
      outcome: result,
      healthy: evalSettled,
      rssMb: Math.round(process.memoryUsage.rss() / 2 ** 20),
    };
  });

  return {
    runId: request.runId,
    deliver(callId, reply) {
      const resolve = pending.get(callId);
      pending.delete(callId);
      if (resolve && !endedBy && !isolate.isDisposed) resolve(reply);
    },
    cancel: () => stop('cancelled'),
    pauseDeadline() {
      if (resumeDeadline || endedBy || over) return;
      resumeDeadline = deadline.pause();
    },
    resumeDeadline() {
      resumeDeadline?.();
      resumeDeadline = null;
    },
    finished,
  };
}

function isolateErrorKind(kind: unknown): WorkerErrorKind {
  switch (kind) {
    case 'syntax': case 'no_solve': case 'runtime': case 'tool_error': case 'call_cap': case 'output_limit':
      return kind;
    default:
      return 'runtime';
  }
}

/** Disposes an isolate unless isolated-vm already has. */
export function disposeQuietly(isolate: Isolate): void {
  try {
    if (!isolate.isDisposed) isolate.dispose();
  } catch {
    // Already disposed by isolated-vm itself (memory limit): nothing left to free.
  }
}

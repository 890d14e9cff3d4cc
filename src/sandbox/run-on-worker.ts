// One run from the host's side: sends the plan to the worker, serves its tool calls, enforces the deadline.
import { setMaxListeners } from 'node:events';
import { MAX_APPROVAL_PAUSE_MS, MAX_LOG_CHARS, MAX_LOG_LINES, WORKER_MAX_RSS_MB, WORKER_OVERRUN_GRACE_MS } from './limits.js';
import { sandboxError } from './error-messages.js';
import type { WorkerErrorKind, WorkerMessage } from './protocol.js';
import { ToolProxy } from './tool-proxy.js';
import type { ToolCaller } from '../mcp/types.js';
import type { SandboxLimits, SandboxResult, SandboxRunOptions } from './types.js';
import type { WorkerExit, WorkerProcess } from './worker-process.js';

/** What runOnWorker() needs for one run. */
export interface WorkerRunInput {
  worker: WorkerProcess;
  runId: number;
  /** Prepared (checked, transpiled) code. */
  code: string;
  options: SandboxRunOptions;
  limits: Required<SandboxLimits>;
  /** performance.now() when the run started; the deadline counts from here. */
  startedAt: number;
}

/** The run's result, and whether its worker must be replaced. */
export interface WorkerRunOutput {
  result: SandboxResult;
  /** The worker must not serve another run (it overran, died, stayed busy, or grew too big). */
  retire: boolean;
}

/** The result of a run its question cancelled (nothing reads it but the record of calls). */
export function cancelledResult(calls: SandboxResult['calls'] = [], logs: string[] = [], ms = 0): SandboxResult {
  return { ok: false, error: { kind: 'cancelled', message: 'The question was cancelled, so the plan was stopped.' }, logs, calls, ms };
}

/**
 * `caller` refusing every call once `ended` has aborted: a call the isolate asks for after its run ended (cancelled,
 * past the deadline) must never reach a server. A new object delegating to `caller`, whose own state stays its own.
 */
function refusingOnceEnded(caller: ToolCaller, ended: AbortSignal): ToolCaller {
  const refused = () => Promise.reject(new Error('the run had ended, so the call was not made'));
  const read = caller.readResource?.bind(caller);
  return {
    callTool: (server, tool, args, callOptions) => (ended.aborted ? refused() : caller.callTool(server, tool, args, callOptions)),
    ...(read ? { readResource: (uri: string, callOptions?: Parameters<typeof read>[1]) => (ended.aborted ? refused() : read(uri, callOptions)) } : {}),
  };
}

/**
 * Runs prepared code on a worker. Never throws; always settles by the deadline plus the overrun grace. When
 * `options.signal` aborts (the question was cancelled) the host refuses every further call at once, abandons the
 * calls in flight, SIGKILLs the worker and settles once it has exited (`retire` is then true), so no part of the
 * plan outlives the settled promise.
 */
export function runOnWorker({ worker, runId, code, options, limits, startedAt }: WorkerRunInput): Promise<WorkerRunOutput> {
  let pauseDeadline: () => () => void = () => () => undefined;
  const runEnded = new AbortController();
  const question = options.signal;
  // Each call in flight listens for the run's end (twice, with its own timeout); refused calls never do.
  setMaxListeners(2 * limits.maxToolCalls + 10, runEnded.signal);
  const proxy = new ToolProxy({
    tools: options.tools,
    caller: refusingOnceEnded(options.caller, runEnded.signal),
    ...(options.approve ? { approve: options.approve } : {}),
    maxToolCalls: limits.maxToolCalls,
    toolTimeoutMs: limits.toolTimeoutMs,
    // Moved later by the time the clock stood still for approvals (pauseDeadline below).
    deadlineAt: startedAt + limits.timeoutMs,
    signal: runEnded.signal,
    ...(options.onToolCall ? { onToolCall: options.onToolCall } : {}),
    ...(options.askUser ? { askUser: options.askUser } : {}),
    ...(options.onUserAnswer ? { onUserAnswer: options.onUserAnswer } : {}),
    ...(options.toolEmbedder ? { toolEmbedder: options.toolEmbedder } : {}),
    pauseDeadline: () => pauseDeadline(),
  });
  const logs = new LogBuffer();
  let cancelled = false;
  /** The question was cancelled: the run ends as 'cancelled' whatever the worker still reports. */
  let questionCancelled = false;

  return new Promise<WorkerRunOutput>((resolve) => {
    let settled = false;
    const finish = (kind: WorkerErrorKind | null, detail: string, retire: boolean, pendingTools = proxy.pendingTools()) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadlineTimer);
      clearTimeout(killTimer);
      clearTimeout(pauseLimit);
      clearTimeout(cancelTimer);
      unsubscribe();
      question?.removeEventListener('abort', onQuestionAbort);
      runEnded.abort();
      proxy.finishRecords();
      const ms = Math.round(performance.now() - startedAt);
      const base = { logs: logs.lines, calls: proxy.calls, ms };
      if (questionCancelled) {
        resolve({ result: cancelledResult(proxy.calls, logs.lines, ms), retire: true });
        return;
      }
      if (kind === null) {
        resolve({ result: { ok: true, value: detail, ...base }, retire });
        return;
      }
      const error = sandboxError(kind, detail, { limits, pendingTools, capHit: proxy.capHit, ...(proxy.lastRefusal ? { lastRefusal: proxy.lastRefusal } : {}) });
      resolve({ result: { ok: false, error, ...base }, retire });
    };

    // At the deadline pending tool calls are abandoned; the worker disposes its isolate at the same moment.
    let pendingAtDeadline: string[] = [];
    let deadlinePassed = false;
    let deadlineTimer: NodeJS.Timeout | undefined;
    let killTimer: NodeJS.Timeout | undefined;
    const armDeadline = () => {
      deadlineTimer = setTimeout(() => {
        deadlinePassed = true;
        pendingAtDeadline = proxy.pendingTools();
        runEnded.abort();
      }, Math.max(0, proxy.deadlineAt - performance.now()));
      killTimer = setTimeout(() => {
        worker.kill();
        finish('timeout', '', true, pendingAtDeadline);
      }, Math.max(0, proxy.deadlineAt - performance.now()) + WORKER_OVERRUN_GRACE_MS);
    };
    armDeadline();

    // While the user is asked to approve a call the clock stands still, here and in the worker, for at
    // most MAX_APPROVAL_PAUSE_MS; questions asked together share one pause.
    let approvalsWaiting = 0;
    let pausedAt: number | null = null;
    let pauseLimit: NodeJS.Timeout | undefined;
    const resumeClock = () => {
      if (pausedAt === null || settled) return;
      clearTimeout(pauseLimit);
      const pausedMs = performance.now() - pausedAt;
      pausedAt = null;
      proxy.extendDeadline(pausedMs);
      worker.send({ type: 'resumeDeadline', runId });
      armDeadline();
    };
    pauseDeadline = () => {
      approvalsWaiting++;
      if (approvalsWaiting === 1 && pausedAt === null && !settled && !deadlinePassed) {
        pausedAt = performance.now();
        clearTimeout(deadlineTimer);
        clearTimeout(killTimer);
        worker.send({ type: 'pauseDeadline', runId });
        pauseLimit = setTimeout(resumeClock, MAX_APPROVAL_PAUSE_MS);
      }
      let resumed = false;
      return () => {
        if (resumed) return;
        resumed = true;
        approvalsWaiting--;
        if (approvalsWaiting === 0) resumeClock();
      };
    };

    // Cancelled: no further call is made (the caller refuses, calls in flight are abandoned), and the worker is
    // killed rather than asked to stop, so nothing of the plan keeps running; the run settles when it has exited.
    let cancelTimer: NodeJS.Timeout | undefined;
    const onQuestionAbort = () => {
      if (settled || questionCancelled) return;
      questionCancelled = true;
      runEnded.abort();
      clearTimeout(deadlineTimer);
      clearTimeout(killTimer);
      clearTimeout(pauseLimit);
      worker.kill();
      // SIGKILL ends a process at once; the timer only bounds the wait should the exit event never come.
      cancelTimer = setTimeout(() => finish('cancelled', '', true), WORKER_OVERRUN_GRACE_MS);
    };

    const onMessage = (message: WorkerMessage) => {
      if (message.runId !== runId || settled) return;
      // After the run ended (cancelled, past its deadline) the isolate's calls are not even looked at.
      if (runEnded.signal.aborted && message.type === 'toolCall') return;
      switch (message.type) {
        case 'log':
          logs.add(message.line);
          return;
        case 'toolCall':
          void proxy.handle(message.name, message.argsJson, message.mode).then((reply) => {
            // Past the deadline the worker is timing out; an "abandoned" reply must not race it into a tool error.
            if (settled || deadlinePassed) return;
            worker.send({ type: 'toolReply', runId, callId: message.callId, reply });
            if (proxy.stopReason() && !cancelled) {
              cancelled = true;
              worker.send({ type: 'cancel', runId });
            }
          });
          return;
        case 'done': {
          const retire = !message.healthy || message.rssMb > WORKER_MAX_RSS_MB;
          const { outcome } = message;
          if (cancelled) finish('cancelled', '', retire);
          else if (outcome.ok && outcome.value.length > limits.maxOutputChars) finish('output_limit', String(outcome.value.length), retire);
          else if (outcome.ok) finish(null, outcome.value, retire);
          else finish(outcome.kind, outcome.detail, retire, outcome.kind === 'timeout' ? pendingAtDeadline : proxy.pendingTools());
          return;
        }
      }
    };
    const onExit = (exit: WorkerExit) => {
      const how = exit.signal ? `signal ${exit.signal}` : `exit code ${exit.code}`;
      if (exit.catastrophic) finish('memory', '', true);
      else finish('crash', `the worker process ended (${how})${lastLine(exit.stderrTail)}`, true);
    };
    const unsubscribe = worker.listen({ message: onMessage, exit: onExit });
    if (question?.aborted) {
      onQuestionAbort();
      return;
    }
    question?.addEventListener('abort', onQuestionAbort, { once: true });

    const sent = worker.send({
      type: 'run',
      runId,
      code,
      toolNames: options.tools.map((t) => t.name),
      timeoutMs: Math.max(1, Math.floor(proxy.deadlineAt - performance.now())),
      memoryMb: limits.memoryMb,
      maxOutputChars: limits.maxOutputChars,
    });
    if (!sent) finish('crash', 'the worker process could not be reached', true);
  });
}

function lastLine(text: string): string {
  const line = text.trim().split('\n').pop()?.trim();
  return line ? `: ${line.slice(0, 200)}` : '';
}

/** Console lines kept on the host, capped again whatever the worker sends. */
class LogBuffer {
  readonly lines: string[] = [];
  private chars = 0;
  private full = false;

  add(line: string): void {
    if (this.full) return;
    // One line of slack over the isolate's own cap leaves room for its "output dropped" notice.
    if (this.lines.length > MAX_LOG_LINES || this.chars + line.length > MAX_LOG_CHARS + 200) {
      this.full = true;
      this.lines.push('[further console output dropped]');
      return;
    }
    this.chars += line.length;
    this.lines.push(line);
  }
}

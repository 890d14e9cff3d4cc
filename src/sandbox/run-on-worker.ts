// One run from the host's side: sends the plan to the worker, serves its tool calls, enforces the deadline.
import { setMaxListeners } from 'node:events';
import { MAX_APPROVAL_PAUSE_MS, MAX_LOG_CHARS, MAX_LOG_LINES, WORKER_MAX_RSS_MB, WORKER_OVERRUN_GRACE_MS } from './limits.js';
import { sandboxError } from './error-messages.js';
import type { WorkerErrorKind, WorkerMessage } from './protocol.js';
import { ToolProxy } from './tool-proxy.js';
import { PausableDeadline } from '../time/pausable-deadline.js';
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
export function runOnWorker(input: WorkerRunInput): Promise<WorkerRunOutput> {
  return new WorkerRun(input).start();
}

/** One run on one worker: its deadline, its tool calls, and the one way it settles (finish). */
export class WorkerRun {
  private readonly worker: WorkerProcess;
  private readonly runId: number;
  private readonly code: string;
  private readonly options: SandboxRunOptions;
  private readonly limits: Required<SandboxLimits>;
  private readonly startedAt: number;
  /** Aborted as the run ends, however it ends: from then on no call reaches a server. */
  private readonly runEnded = new AbortController();
  private readonly proxy: ToolProxy;
  private readonly logs = new LogBuffer();
  /**
   * The run's deadline. While a person is asked to approve a call (or answer a server) it stands still, here and in
   * the worker, for at most MAX_APPROVAL_PAUSE_MS at a time; questions asked together share one pause.
   */
  private readonly deadline: PausableDeadline;
  /** The tool calls still pending when the deadline passed: they are what the timeout reports. */
  private pendingAtDeadline: string[] = [];
  /** A tool reply asked the plan to stop (the proxy's stop reason); the run ends as 'cancelled'. */
  private stopSent = false;
  /** The question was cancelled: the run ends as 'cancelled' whatever the worker still reports. */
  private questionCancelled = false;
  private settled = false;
  /** Bounds the wait for the worker after the deadline, or after it was killed for a cancelled question. */
  private killTimer: NodeJS.Timeout | undefined;
  private unsubscribe: () => void = () => undefined;
  private resolve: (output: WorkerRunOutput) => void = () => undefined;

  constructor({ worker, runId, code, options, limits, startedAt }: WorkerRunInput) {
    this.worker = worker;
    this.runId = runId;
    this.code = code;
    this.options = options;
    this.limits = limits;
    this.startedAt = startedAt;
    // Each call in flight listens for the run's end (twice, with its own timeout); refused calls never do.
    setMaxListeners(2 * limits.maxToolCalls + 10, this.runEnded.signal);
    this.proxy = new ToolProxy({
      tools: options.tools,
      caller: refusingOnceEnded(options.caller, this.runEnded.signal),
      ...(options.approve ? { approve: options.approve } : {}),
      maxToolCalls: limits.maxToolCalls,
      toolTimeoutMs: limits.toolTimeoutMs,
      remainingMs: () => this.deadline.remainingMs(),
      signal: this.runEnded.signal,
      ...(options.onToolCall ? { onToolCall: options.onToolCall } : {}),
      ...(options.askUser ? { askUser: options.askUser } : {}),
      ...(options.onUserAnswer ? { onUserAnswer: options.onUserAnswer } : {}),
      ...(options.toolEmbedder ? { toolEmbedder: options.toolEmbedder } : {}),
      pauseDeadline: () => this.deadline.pause(),
    });
    this.deadline = new PausableDeadline({
      ms: Math.max(0, startedAt + limits.timeoutMs - performance.now()),
      maxPauseMs: MAX_APPROVAL_PAUSE_MS,
      onPause: () => this.worker.send({ type: 'pauseDeadline', runId }),
      onResume: () => this.worker.send({ type: 'resumeDeadline', runId }),
    });
    this.deadline.signal.addEventListener('abort', this.onDeadline, { once: true });
  }

  /** Sends the run to the worker; settles once, by finish(). */
  start(): Promise<WorkerRunOutput> {
    return new Promise<WorkerRunOutput>((resolve) => {
      this.resolve = resolve;
      this.unsubscribe = this.worker.listen({ message: this.onMessage, exit: this.onExit });
      const question = this.options.signal;
      if (question?.aborted) {
        this.onQuestionAbort();
        return;
      }
      question?.addEventListener('abort', this.onQuestionAbort, { once: true });
      const sent = this.worker.send({
        type: 'run',
        runId: this.runId,
        code: this.code,
        toolNames: this.options.tools.map((t) => t.name),
        timeoutMs: Math.max(1, Math.floor(this.deadline.remainingMs())),
        memoryMb: this.limits.memoryMb,
        maxOutputChars: this.limits.maxOutputChars,
      });
      if (!sent) this.finish('crash', 'the worker process could not be reached', true);
    });
  }

  /** At the deadline pending tool calls are abandoned; the worker disposes its isolate at the same moment. */
  private readonly onDeadline = (): void => {
    this.pendingAtDeadline = this.proxy.pendingTools();
    this.runEnded.abort();
    this.killTimer = setTimeout(() => {
      this.worker.kill();
      this.finish('timeout', '', true, this.pendingAtDeadline);
    }, WORKER_OVERRUN_GRACE_MS);
  };

  /**
   * Cancelled: no further call is made (the caller refuses, calls in flight are abandoned), and the worker is
   * killed rather than asked to stop, so nothing of the plan keeps running; the run settles when it has exited.
   */
  private readonly onQuestionAbort = (): void => {
    if (this.settled || this.questionCancelled) return;
    this.questionCancelled = true;
    this.runEnded.abort();
    this.deadline.dispose();
    clearTimeout(this.killTimer);
    this.worker.kill();
    // SIGKILL ends a process at once; the timer only bounds the wait should the exit event never come.
    this.killTimer = setTimeout(() => this.finish('cancelled', '', true), WORKER_OVERRUN_GRACE_MS);
  };

  private readonly onMessage = (message: WorkerMessage): void => {
    if (message.runId !== this.runId || this.settled) return;
    // After the run ended (cancelled, past its deadline) the isolate's calls are not even looked at.
    if (this.runEnded.signal.aborted && message.type === 'toolCall') return;
    switch (message.type) {
      case 'log':
        this.logs.add(message.line);
        return;
      case 'toolCall':
        void this.proxy.handle(message.name, message.argsJson, message.mode).then((reply) => this.onToolReply(message.callId, reply));
        return;
      case 'done':
        this.onDone(message);
        return;
    }
  };

  private onToolReply(callId: number, reply: string): void {
    // Past the deadline the worker is timing out; an "abandoned" reply must not race it into a tool error.
    if (this.settled || this.deadline.signal.aborted) return;
    this.worker.send({ type: 'toolReply', runId: this.runId, callId, reply });
    if (this.proxy.stopReason() && !this.stopSent) {
      this.stopSent = true;
      this.worker.send({ type: 'cancel', runId: this.runId });
    }
  }

  private onDone({ outcome, healthy, rssMb }: Extract<WorkerMessage, { type: 'done' }>): void {
    const retire = !healthy || rssMb > WORKER_MAX_RSS_MB;
    if (this.stopSent) this.finish('cancelled', '', retire);
    else if (outcome.ok && outcome.value.length > this.limits.maxOutputChars) this.finish('output_limit', String(outcome.value.length), retire);
    else if (outcome.ok) this.finish(null, outcome.value, retire);
    else this.finish(outcome.kind, outcome.detail, retire, outcome.kind === 'timeout' ? this.pendingAtDeadline : this.proxy.pendingTools());
  }

  private readonly onExit = (exit: WorkerExit): void => {
    const how = exit.signal ? `signal ${exit.signal}` : `exit code ${exit.code}`;
    if (exit.catastrophic) this.finish('memory', '', true);
    else if (exit.unavailable) this.finish('unavailable', exit.unavailable, true);
    else this.finish('crash', `the worker process ended (${how})${lastLine(exit.stderrTail)}`, true);
  };

  /** Settles the run once: stops its clocks and listeners, ends its calls, and reports. */
  private finish(kind: WorkerErrorKind | null, detail: string, retire: boolean, pendingTools = this.proxy.pendingTools()): void {
    if (this.settled) return;
    this.settled = true;
    this.deadline.dispose();
    clearTimeout(this.killTimer);
    this.unsubscribe();
    this.options.signal?.removeEventListener('abort', this.onQuestionAbort);
    this.runEnded.abort();
    this.proxy.finishRecords();
    const ms = Math.round(performance.now() - this.startedAt);
    const base = { logs: this.logs.lines, calls: this.proxy.calls, ms };
    if (this.questionCancelled) {
      this.resolve({ result: cancelledResult(this.proxy.calls, this.logs.lines, ms), retire: true });
      return;
    }
    if (kind === null) {
      this.resolve({ result: { ok: true, value: detail, ...base }, retire });
      return;
    }
    const { limits, proxy } = this;
    const error = sandboxError(kind, detail, { limits, pendingTools, capHit: proxy.capHit, ...(proxy.lastRefusal ? { lastRefusal: proxy.lastRefusal } : {}) });
    this.resolve({ result: { ok: false, error, ...base }, retire });
  }
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

// The MCP tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663) on protocol 2026-07-28: a tools/call answered with a task is polled to its result.
import { setTimeout as delay } from 'node:timers/promises';
import { z } from 'zod';
import type { SessionRequestOptions } from './types.js';

/** The extension's identifier, declared in every request's client capabilities and in the server's `server/discover`. */
export const TASKS_EXTENSION_ID = 'io.modelcontextprotocol/tasks';
/** Where a task handle rides out of the SDK's response funnel, which refuses a `resultType` it does not know. */
const TASK_HANDLE_KEY = 'cortex-r/task';
/** Wait between two polls when the server gives no `pollIntervalMs`. */
const DEFAULT_TASK_POLL_INTERVAL_MS = 1_000;
/** Shortest wait between two polls whatever the server says: a hint of 0 must not turn into a busy loop. */
const MIN_TASK_POLL_INTERVAL_MS = 10;
/** Longest wait between two polls whatever the server says, so a finished task is noticed within this. */
const MAX_TASK_POLL_INTERVAL_MS = 30_000;
/** Polls per task; the call's own clock ends it long before this, which only bounds a loop that never ends. */
const MAX_TASK_POLLS = 100_000;
/** How long the `tasks/cancel` of an abandoned call may take: it is sent after the call has already given up. */
const TASK_CANCEL_TIMEOUT_MS = 10_000;

/** A task as `tools/call` (resultType "task") and `tasks/get` give it: the fields we read, the rest kept. */
const TaskSchema = z.looseObject({
  taskId: z.string(),
  status: z.string(),
  statusMessage: z.string().optional(),
  pollIntervalMs: z.number().optional(),
  inputRequests: z.record(z.string(), z.looseObject({ method: z.string(), params: z.unknown().optional() })).optional(),
  result: z.record(z.string(), z.unknown()).optional(),
  error: z.looseObject({ code: z.number().optional(), message: z.string().optional() }).optional(),
});
export type Task = z.infer<typeof TaskSchema>;
/** `tasks/update` and `tasks/cancel` answer an empty acknowledgement. */
const AckSchema = z.looseObject({});

/** Why following a task failed. */
export type TaskErrorCode = 'failed' | 'cancelled' | 'no-result' | 'not-a-tool-result' | 'unanswerable-input' | 'endless';

/** Following a task failed: it failed or was cancelled on the server, or we gave up on it (`detail` says on what). */
export class TaskError extends Error {
  constructor(
    readonly code: TaskErrorCode,
    readonly taskId: string,
    /** The server's reason (failed, cancelled), or the input method we cannot answer. */
    readonly detail = '',
    /** The JSON-RPC error code of a failed task. */
    readonly rpcCode?: number,
  ) {
    super(taskErrorMessage(code, detail));
    this.name = 'TaskError';
  }

  /** True when the task is over on the server: nothing to cancel. */
  get ended(): boolean {
    return this.code === 'failed' || this.code === 'cancelled' || this.code === 'no-result' || this.code === 'not-a-tool-result';
  }
}

function taskErrorMessage(code: TaskErrorCode, detail: string): string {
  switch (code) {
    case 'failed':
      return `task failed: ${detail || 'no reason given'}`;
    case 'cancelled':
      return `task was cancelled${detail ? `: ${detail}` : ''}`;
    case 'no-result':
      return 'the task completed without a result';
    case 'not-a-tool-result':
      return 'the task completed with something other than a tool result';
    case 'unanswerable-input':
      return `the task asked for ${detail}, which Cortex-R does not answer, so it was cancelled`;
    case 'endless':
      return `the task was polled ${MAX_TASK_POLLS} times without ending, so it was cancelled`;
  }
}

/** A raw JSON-RPC response as the SDK client receives it. */
type RawResponse = { jsonrpc: '2.0'; id?: string | number; result?: Record<string, unknown>; error?: unknown };

/**
 * A response carrying a task (`resultType: "task"`) as an error response holding the task, else undefined. The SDK
 * v2 client (2.4.0) has no tasks runtime and rejects a result type it does not know, dropping the result; an error's
 * `data` reaches the caller whole, where taskIn() takes the task back out.
 */
export function taskResponseAsError(response: RawResponse): RawResponse | undefined {
  if (response.result?.['resultType'] !== 'task') return undefined;
  const task = TaskSchema.safeParse(response.result);
  const message = task.success ? 'the server answered with a task' : 'the server answered with a task without its taskId and status';
  return { jsonrpc: '2.0', id: response.id, error: { code: -32000, message, data: { [TASK_HANDLE_KEY]: response.result } } };
}

/** The task a call was answered with (see taskResponseAsError), or undefined. */
export function taskIn(err: unknown): Task | undefined {
  const data = (err as { data?: unknown })?.data;
  const raw = data && typeof data === 'object' ? (data as Record<string, unknown>)[TASK_HANDLE_KEY] : undefined;
  const parsed = TaskSchema.safeParse(raw);
  return parsed.success ? parsed.data : undefined;
}

/** How the task's requests reach the server: the SDK client's generic request API. */
export interface TaskRequester {
  request<T extends z.ZodType>(request: { method: string; params: Record<string, unknown> }, schema: T, options?: { timeout?: number; signal?: AbortSignal }): Promise<z.infer<T>>;
}

/** Answers one of the server's input requests (`elicitation/create`, `roots/list`); undefined: we cannot. */
export type AnswerInput = (method: string, params: unknown, signal: AbortSignal) => Promise<Record<string, unknown>> | undefined;

/**
 * Follows `created` to its end by polling `tasks/get` at the server's `pollIntervalMs` (bounded): each status reaches
 * `onprogress` (its `statusMessage` as the message), the input it asks for is answered through `answer` and sent with
 * `tasks/update`, and a call abandoned (`signal` aborted) sends `tasks/cancel` and waits for its acknowledgement
 * (bounded) before it rejects, as does one given up on (input we cannot give, a poll that failed). Returns the
 * task's result; throws TaskError when the task fails, is cancelled or is given up on, and what the SDK throws.
 */
export async function followTask(
  requester: TaskRequester,
  created: Task,
  options: SessionRequestOptions,
  answer: AnswerInput,
  /** Waits between two polls (tests hand in one that records the waits instead). */
  wait: (ms: number, signal?: AbortSignal) => Promise<unknown> = (ms, signal) => delay(ms, undefined, signal ? { signal } : {}),
): Promise<Record<string, unknown>> {
  const { taskId } = created;
  const signal = options.signal;
  const answered = new Set<string>();
  try {
    let task = created;
    for (let polls = 0; polls < MAX_TASK_POLLS; polls++) {
      const ended = outcome(task);
      if (ended) return ended;
      if (polls > 0) {
        const note = task.statusMessage;
        options.onprogress?.({ progress: polls, ...(note ? { message: note } : {}) });
      }
      if (task.status === 'input_required') await supplyInput(requester, task, answered, answer, options);
      await wait(pollInterval(task), signal);
      task = await requester.request({ method: 'tasks/get', params: { taskId } }, TaskSchema, requestOptions(options));
    }
    throw new TaskError('endless', taskId);
  } catch (err) {
    // Abandoned (the person's Stop, the plan's deadline, our clock) or given up on: the task is cancelled on the
    // server before the caller hears of it, so no work goes on that nobody will read.
    if (!(err instanceof TaskError && err.ended)) await requester.request({ method: 'tasks/cancel', params: { taskId } }, AckSchema, { timeout: TASK_CANCEL_TIMEOUT_MS }).catch(() => undefined);
    throw err;
  }
}

/** The tool's result when the task completed; throws when it failed or was cancelled; undefined while it runs. */
function outcome(task: Task): Record<string, unknown> | undefined {
  if (task.status === 'completed') {
    if (!task.result) throw new TaskError('no-result', task.taskId);
    return task.result;
  }
  if (task.status === 'failed') throw new TaskError('failed', task.taskId, task.error?.message ?? task.statusMessage ?? '', task.error?.code);
  if (task.status === 'cancelled') throw new TaskError('cancelled', task.taskId, task.statusMessage ?? '');
  return undefined;
}

/** Answers the input requests not answered yet (a key is unique over the task's life) and sends them in one `tasks/update`. */
async function supplyInput(requester: TaskRequester, task: Task, answered: Set<string>, answer: AnswerInput, options: SessionRequestOptions): Promise<void> {
  const responses: Record<string, unknown> = {};
  for (const [key, request] of Object.entries(task.inputRequests ?? {})) {
    if (answered.has(key)) continue;
    const reply = answer(request.method, request.params, options.signal ?? new AbortController().signal);
    // It would wait forever for an answer we cannot give (e.g. sampling): better to say so now.
    if (!reply) throw new TaskError('unanswerable-input', task.taskId, request.method);
    responses[key] = await reply;
    answered.add(key);
  }
  if (Object.keys(responses).length === 0) return;
  await requester.request({ method: 'tasks/update', params: { taskId: task.taskId, inputResponses: responses } }, AckSchema, requestOptions(options));
}

/** The server's hint, within our bounds. */
function pollInterval(task: Task): number {
  const hint = task.pollIntervalMs;
  if (hint === undefined || !Number.isFinite(hint)) return DEFAULT_TASK_POLL_INTERVAL_MS;
  return Math.min(MAX_TASK_POLL_INTERVAL_MS, Math.max(MIN_TASK_POLL_INTERVAL_MS, hint));
}

function requestOptions(options: SessionRequestOptions): { timeout?: number; signal?: AbortSignal } {
  return { ...(options.timeout !== undefined ? { timeout: options.timeout } : {}), ...(options.signal ? { signal: options.signal } : {}) };
}

// A tool that runs only as an MCP task (2025-11-25 `execution.taskSupport: "required"`), called through SDK v1's task stream.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import type { SessionRequestOptions } from './types.js';

/** How long the server keeps a task and its result after it ends; enough to fetch it, not to hoard it. */
const TASK_TTL_MS = 10 * 60_000;
/** Status updates read per task; the stream ends at a terminal status, this only bounds a server that never gets there. */
const MAX_TASK_STATUS_UPDATES = 100_000;

/**
 * Creates the task and follows it to its result: each status the server reports reaches `onprogress` (its
 * `statusMessage` as the message), and aborting `signal` cancels the task on the server (`tasks/cancel`). Throws the
 * SDK's McpError when the task fails or is cancelled.
 */
export async function callAsTask(client: Client, params: { name: string; arguments: Record<string, unknown>; _meta?: Record<string, unknown> }, options: SessionRequestOptions): Promise<unknown> {
  let taskId: string | undefined;
  const cancel = () => {
    if (taskId) void client.experimental.tasks.cancelTask(taskId).catch(() => undefined);
  };
  options.signal?.addEventListener('abort', cancel, { once: true });
  try {
    let updates = 0;
    const stream = client.experimental.tasks.callToolStream(params, CallToolResultSchema, { ...options, task: { ttl: TASK_TTL_MS } });
    for await (const message of stream) {
      if (message.type === 'taskCreated') taskId = message.task.taskId;
      else if (message.type === 'taskStatus') {
        if (++updates > MAX_TASK_STATUS_UPDATES) throw new Error(`task ${taskId} reported ${MAX_TASK_STATUS_UPDATES} statuses without ending`);
        const note = message.task.statusMessage;
        options.onprogress?.({ progress: updates, ...(note ? { message: note } : {}) });
      } else if (message.type === 'result') return message.result;
      else throw message.error;
    }
    throw new Error(`task ${taskId} ended without a result`);
  } finally {
    options.signal?.removeEventListener('abort', cancel);
    // A call abandoned between polls (our clock's deadline) leaves no task running on the server.
    if (options.signal?.aborted) cancel();
  }
}

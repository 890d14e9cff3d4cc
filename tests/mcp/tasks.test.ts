// Task-only tools (MCP 2025-11-25 tasks) against a real SDK server with a task store: called as tasks, status as progress, cancel reaches the server.
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks';
import type { Task } from '@modelcontextprotocol/sdk/types.js';
import { MultiMcp } from '../../src/mcp/multi-mcp.js';
import type { ToolProgress } from '../../src/mcp/types.js';
import { httpSpec } from './http-fixture.js';

/** A task store that tells the test what happens to its tasks: each status read, and each status set. */
class WatchedStore extends InMemoryTaskStore {
  reads = 0;
  private readonly onRead: Array<() => void> = [];
  private readonly onStatus: Array<(status: Task['status']) => void> = [];
  /** Resolves at the next status read. */
  nextRead = () => new Promise<void>((resolve) => this.onRead.push(resolve));
  /** Resolves when a task is given `status`. */
  statusSet = (status: Task['status']) => new Promise<void>((resolve) => this.onStatus.push((s) => s === status && resolve()));
  override async getTask(taskId: string, sessionId?: string) {
    const task = await super.getTask(taskId, sessionId);
    this.reads++;
    for (const wake of this.onRead.splice(0)) wake();
    return task;
  }
  override async updateTaskStatus(taskId: string, status: Task['status'], message?: string, sessionId?: string) {
    await super.updateTaskStatus(taskId, status, message, sessionId);
    for (const tell of this.onStatus) tell(status);
  }
}

let http: Server | undefined;
let multi: MultiMcp | undefined;
afterEach(async () => {
  await multi?.close();
  http?.closeAllConnections();
  http?.close();
  multi = http = undefined;
});

/** One server session over Streamable HTTP with a task store, offering `double` (task-only, ends) and `forever` (task-only, never ends). */
async function startTaskServer(store: WatchedStore): Promise<string> {
  const server = new McpServer({ name: 'tasks', version: '1.0.0' }, { capabilities: { tools: {}, tasks: { requests: { tools: { call: {} } }, cancel: {}, list: {} } }, taskStore: store });
  const handlers = (work: (taskId: string, n: number) => Promise<void>) => ({
    createTask: async ({ n }: { n: number }) => {
      const task = await store.createTask({ ttl: 60_000, pollInterval: 5 }, randomUUID(), { method: 'tools/call', params: {} });
      void work(task.taskId, n);
      return { task };
    },
    getTask: async (_args: unknown, extra: { taskId: string }) => (await store.getTask(extra.taskId))!,
    getTaskResult: async (_args: unknown, extra: { taskId: string }) => (await store.getTaskResult(extra.taskId)) as never,
  });
  const config = { description: 'Doubles n, slowly', inputSchema: { n: z.number() }, execution: { taskSupport: 'required' as const } };
  server.experimental.tasks.registerToolTask('double', config, handlers(async (taskId, n) => {
    await store.updateTaskStatus(taskId, 'working', 'halfway');
    // The client has seen "halfway" once it has read the status twice more.
    while (store.reads < 2) await store.nextRead();
    await store.storeTaskResult(taskId, 'completed', { content: [{ type: 'text', text: String(n * 2) }] });
  }));
  server.experimental.tasks.registerToolTask('forever', { ...config, description: 'Never ends' }, handlers(async (taskId) => store.updateTaskStatus(taskId, 'working', 'still going')));
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: randomUUID, enableJsonResponse: true });
  await server.connect(transport);
  http = createServer((req, res) => void transport.handleRequest(req, res));
  await new Promise<void>((resolve) => http!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
}

describe('task-only tools', () => {
  it('are offered, called as tasks, and their status reaches the display as progress', async () => {
    const store = new WatchedStore();
    multi = await MultiMcp.start([httpSpec('tasks', await startTaskServer(store))]);
    expect(multi.listTools(['tasks']).map((t) => t.remoteName).sort()).toEqual(['double', 'forever']);
    const progress: ToolProgress[] = [];
    const res = await multi.callTool('tasks', 'double', { n: 21 }, { onProgress: (p) => progress.push(p) });
    expect(res.content[0]!.text).toBe('42');
    expect(progress.map((p) => p.message)).toContain('halfway');
  });

  it('cancel the task on the server when the call is abandoned', async () => {
    const store = new WatchedStore();
    multi = await MultiMcp.start([httpSpec('tasks', await startTaskServer(store))]);
    const stop = new AbortController();
    const cancelled = store.statusSet('cancelled');
    const call = multi.callTool('tasks', 'forever', { n: 1 }, { signal: stop.signal, onProgress: () => stop.abort() });
    await expect(call).rejects.toThrow();
    await cancelled;
    expect(store.getAllTasks().map((t) => t.status)).toEqual(['cancelled']);
  });
});

// followTask on its own: the waits between polls follow the server's hint within bounds, each question is asked once, and a task given up on is cancelled.
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { TaskError, followTask, taskIn, taskResponseAsError, type AnswerInput, type Task, type TaskRequester } from '../../src/mcp/modern-task-call.js';

/** A server as the task's requests see it: answers `tasks/get` from a script, acknowledges the rest, and records every request. */
class ScriptedServer implements TaskRequester {
  readonly requests: Array<{ method: string; params: Record<string, unknown> }> = [];
  constructor(private readonly polls: Array<Partial<Task>>) {}
  async request<T extends z.ZodType>(request: { method: string; params: Record<string, unknown> }, schema: T): Promise<z.infer<T>> {
    this.requests.push(request);
    if (request.method !== 'tasks/get') return schema.parse({});
    const next = this.polls.shift();
    if (!next) throw new Error('polled past the script');
    return schema.parse({ taskId: 't1', ...next });
  }
  methods(): string[] {
    return this.requests.map((r) => r.method);
  }
}

const created: Task = { taskId: 't1', status: 'working' };
const done = { status: 'completed', result: { content: [{ type: 'text', text: 'ok' }] } };
const nobodyAsked: AnswerInput = () => undefined;

/** Runs followTask with waits recorded, not waited. */
async function follow(server: ScriptedServer, first: Task, answer: AnswerInput = nobodyAsked) {
  const waits: number[] = [];
  const progress: Array<string | undefined> = [];
  const run = followTask(server, first, { onprogress: (p) => progress.push(p.message) }, answer, async (ms) => void waits.push(ms));
  return { run, waits, progress };
}

describe('followTask', () => {
  it("waits between polls as long as the server asks, within 10 ms and 30 s, and 1 s when it does not say", async () => {
    const server = new ScriptedServer([{ status: 'working', pollIntervalMs: 250 }, { status: 'working', pollIntervalMs: 0 }, { status: 'working', pollIntervalMs: 3_600_000 }, done]);
    const { run, waits } = await follow(server, created);
    expect(await run).toEqual(done.result);
    expect(waits).toEqual([1_000, 250, 10, 30_000]);
  });

  it('reports each status polled, with its message, as progress', async () => {
    const server = new ScriptedServer([{ status: 'working', statusMessage: 'copying' }, { status: 'working', statusMessage: 'indexing' }, done]);
    const { run, progress } = await follow(server, created);
    await run;
    expect(progress).toEqual(['copying', 'indexing']);
  });

  it('asks each question once though the server shows it again until the answer lands, and sends the answer with tasks/update', async () => {
    const question = { who: { method: 'elicitation/create', params: { message: 'Name?' } } };
    const server = new ScriptedServer([{ status: 'input_required', inputRequests: question }, { status: 'input_required', inputRequests: question }, done]);
    const asked: unknown[] = [];
    const { run } = await follow(server, created, (method, params) => (asked.push(params), Promise.resolve({ action: 'accept', content: { name: 'Ada' } })));
    await run;
    expect(asked).toEqual([{ message: 'Name?' }]);
    expect(server.requests.filter((r) => r.method === 'tasks/update')).toEqual([{ method: 'tasks/update', params: { taskId: 't1', inputResponses: { who: { action: 'accept', content: { name: 'Ada' } } } } }]);
  });

  it('cancels a task that asks for what it cannot answer, and says what', async () => {
    const server = new ScriptedServer([{ status: 'input_required', inputRequests: { draft: { method: 'sampling/createMessage' } } }]);
    const { run } = await follow(server, created);
    await expect(run).rejects.toMatchObject({ code: 'unanswerable-input', detail: 'sampling/createMessage' });
    expect(server.methods()).toEqual(['tasks/get', 'tasks/cancel']);
  });

  it('fails with the server\'s error for a failed task, and sends no cancel for a task already over', async () => {
    const server = new ScriptedServer([{ status: 'failed', error: { code: -32603, message: 'disk full' } }]);
    const { run } = await follow(server, created);
    await expect(run).rejects.toThrow(new TaskError('failed', 't1', 'disk full', -32603));
    expect(server.methods()).toEqual(['tasks/get']);
  });
});

describe('a task answer in the SDK response funnel', () => {
  it('is carried as an error holding the task, and taken back out whole', () => {
    const response = { jsonrpc: '2.0' as const, id: 7, result: { resultType: 'task', taskId: 't9', status: 'working', pollIntervalMs: 5 } };
    const asError = taskResponseAsError(response)!;
    expect(asError).toMatchObject({ id: 7, error: { message: 'the server answered with a task' } });
    expect(taskIn(asError.error)).toMatchObject({ taskId: 't9', status: 'working', pollIntervalMs: 5 });
  });

  it('leaves every other answer alone', () => {
    expect(taskResponseAsError({ jsonrpc: '2.0', id: 1, result: { resultType: 'complete', content: [] } })).toBeUndefined();
  });
});

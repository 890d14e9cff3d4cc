// The tasks extension on 2026-07-28 against a real SDK v2 server that writes its handlers out: a call answered with a task is followed to its result, over stdio and Streamable HTTP.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerSpec } from '../../src/config/server-spec.js';
import type { Elicit } from '../../src/mcp/elicitation.js';
import { MultiMcp } from '../../src/mcp/multi-mcp.js';
import type { ToolProgress } from '../../src/mcp/types.js';
import { PROJECT_ROOT } from '../../src/paths.js';
import { httpSpec } from './http-fixture.js';

const TASKS_SERVER = join(PROJECT_ROOT, 'tests', 'fixtures', 'modern-tasks-server.mjs');

/** What the person was asked, in order. */
const asked: string[] = [];
/** A person who answers every form with their name. */
const answerAs = (name: string): Elicit => async (request) => {
  asked.push(`${request.server}: ${request.message}`);
  return { action: 'accept', content: { name } };
};

/** The fixture over Streamable HTTP in its own process; resolves with its port once it listens. */
function startHttp(children: ChildProcess[]): Promise<number> {
  const child = spawn(process.execPath, [TASKS_SERVER, '--http', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  return new Promise((resolve, reject) => {
    child.stdout!.once('data', (d: Buffer) => resolve(Number(d.toString().trim())));
    child.on('exit', (code) => reject(new Error(`tasks server exited (${code})`)));
  });
}

const stdioSpec = (id: string): ServerSpec => ({ id, command: process.execPath, args: [TASKS_SERVER], cwd: PROJECT_ROOT, env: {}, description: id, capabilities: [] });

describe('tasks on 2026-07-28', () => {
  const children: ChildProcess[] = [];
  let multi: MultiMcp;

  beforeAll(async () => {
    const port = await startHttp(children);
    multi = await MultiMcp.start([stdioSpec('tasks-stdio'), httpSpec('tasks-http', `http://127.0.0.1:${port}/mcp`)], { elicit: answerAs('Ada') });
  });
  afterAll(async () => {
    await multi.close();
    for (const child of children) child.kill();
  });

  /** The server's record of what happened to its tasks. */
  const taskLog = async (id: string) => String((await multi.callTool(id, 'task_log', {})).content[0]!.text).split('\n');

  it.each(['tasks-stdio', 'tasks-http'])('offers every tool of %s, which declares the extension, on 2026-07-28', (id) => {
    expect(multi.statuses().find((s) => s.id === id)).toMatchObject({ state: 'ready', protocolVersion: '2026-07-28' });
    expect(multi.listTools([id]).map((t) => t.remoteName)).toEqual(['add', 'double', 'forever', 'greet_later', 'doomed', 'confirm_then_run', 'wants_sampling', 'task_log']);
  });

  it.each(['tasks-stdio', 'tasks-http'])('follows a task of %s to its result, its status reaching the display as progress', async (id) => {
    const progress: ToolProgress[] = [];
    const result = await multi.callTool(id, 'double', { n: 21 }, { onProgress: (p) => progress.push(p) });
    expect(result.content).toEqual([{ type: 'text', text: '42' }]);
    expect(progress.map((p) => p.message)).toEqual(['halfway']);
    // A tool the server answers at once is still answered at once.
    expect((await multi.callTool(id, 'add', { a: 2, b: 3 })).content).toEqual([{ type: 'text', text: '5' }]);
  });

  it.each(['tasks-stdio', 'tasks-http'])('cancels the task on %s when the call is abandoned', async (id) => {
    const stop = new AbortController();
    const call = multi.callTool(id, 'forever', {}, { signal: stop.signal, onProgress: () => stop.abort() });
    await expect(call).rejects.toThrow();
    expect(await taskLog(id)).toContain('forever:cancelled');
  });

  it.each(['tasks-stdio', 'tasks-http'])('puts the question a task of %s asks to the person, and sends the answer back', async (id) => {
    const before = asked.length;
    const result = await multi.callTool(id, 'greet_later', {});
    expect(result.content).toEqual([{ type: 'text', text: 'Hello, Ada' }]);
    expect(asked.slice(before)).toEqual([`${id}: What is your name?`]);
  });

  it.each(['tasks-stdio', 'tasks-http'])('reports the error of a task of %s that failed', async (id) => {
    await expect(multi.callTool(id, 'doomed', {})).rejects.toThrow(/task failed: the backend gave up/);
  });

  it.each(['tasks-stdio', 'tasks-http'])('asks the question %s puts before it makes the task, then follows the task', async (id) => {
    const before = asked.length;
    const result = await multi.callTool(id, 'confirm_then_run', {});
    expect(result.content).toEqual([{ type: 'text', text: 'ran for Ada' }]);
    expect(asked.slice(before)).toEqual([`${id}: Who confirms the run?`]);
  });

  it.each(['tasks-stdio', 'tasks-http'])('says so and cancels the task when a task of %s asks for what Cortex-R cannot give (sampling)', async (id) => {
    await expect(multi.callTool(id, 'wants_sampling', {})).rejects.toThrow(/asked for sampling\/createMessage, which Cortex-R does not answer/);
    expect(await taskLog(id)).toContain('wants_sampling:cancelled');
  });

  it('names the task in Mcp-Name on every tasks request over HTTP, for the routers in between', async () => {
    await multi.callTool('tasks-http', 'double', { n: 1 });
    const headers = (await taskLog('tasks-http')).filter((line) => line.startsWith('name-header:'));
    expect(headers.length).toBeGreaterThan(0);
    expect(new Set(headers)).toEqual(new Set(['name-header:ok']));
  });
});

// Cancel means cancel, end to end: a question stopped over HTTP makes no tool call after the cancel, its slot is
// held until its plan has ended, and cancelled questions never delay the next one; a viewer leaving cancels nothing,
// and a plain JSON question ends with its connection.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeLlmServer } from '../helpers/fake-ollama-server.js';
import { recorderProject, startGateLlm } from './cancel-harness.js';
import { ask, joinQuestion, jsonOf, ollamaEnv, sessionOf, startServe, stopQuestion, type ServeRun, type SseEvent } from './serve-harness.js';

/** Requests made while waiting for the server to notice something; each awaits a real answer, no timers. */
const MAX_POLLS = 2_000;

/** The events of an SSE response as they arrive. */
async function* sseEvents(response: Response): AsyncGenerator<SseEvent> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      const lines = buffer.slice(0, end).split('\n');
      buffer = buffer.slice(end + 2);
      const data = lines.filter((l) => l.startsWith('data: ')).map((l) => l.slice(6)).join('\n');
      if (data) yield { event: lines.find((l) => l.startsWith('event: '))?.slice(7) ?? 'message', data: JSON.parse(data) };
    }
  }
}

/** Reads events until one matches, leaving the stream open for more; throws if the stream ends first. */
async function until(events: AsyncGenerator<SseEvent>, match: (e: SseEvent) => boolean): Promise<SseEvent> {
  for (let next = await events.next(); !next.done; next = await events.next()) if (match(next.value)) return next.value;
  throw new Error('the stream ended before the expected event');
}

async function pollUntil<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (let i = 0; i < MAX_POLLS; i++) {
    const value = await read();
    if (done(value)) return value;
  }
  throw new Error(`condition not reached after ${MAX_POLLS} requests`);
}

describe('cortex serve: cancel means cancel (real sandbox, a real MCP server recording its calls)', () => {
  let llm: FakeLlmServer;
  let serve: ServeRun;
  let project: ReturnType<typeof recorderProject>;

  beforeAll(async () => {
    llm = await startGateLlm();
    project = recorderProject('serve:\n  max_concurrent: 8\n  sandbox_workers: 2\n');
    serve = await startServe(project.profile, ollamaEnv(llm.url));
  });
  afterAll(async () => {
    expect(await serve?.stop()).toBe(0);
    await llm?.close();
  });

  const running = async () => ((await jsonOf(fetch(`${serve.url}/healthz`))) as { running: number }).running;
  const calls = () => project.calls();
  const release = (tag: string) => project.release(tag);

  const health = async () => (await jsonOf(fetch(`${serve.url}/healthz`))) as { running: number; viewers: number };

  it('keeps a question running when one of its two viewers disconnects: the other gets its answer', async () => {
    const asker = new AbortController();
    const response = await ask(serve.url, { question: 'Run GATE-V' }, { signal: asker.signal });
    const session = sessionOf(response);
    const other = sseEvents(await joinQuestion(serve.url, session));
    expect((await other.next()).value).toMatchObject({ event: 'question', data: { session_id: session, question: 'Run GATE-V' } });
    // The viewer who joined late sees what happened before it came.
    await until(other, (e) => e.event === 'tool_call' && e.data.phase === 'start' && e.data.record.tool === 'gate');
    asker.abort();
    await pollUntil(health, (h) => h.viewers === 1);
    release('GATE-V');
    expect((await until(other, (e) => e.event === 'result')).data).toMatchObject({ status: 'answered', answer: 'passed', session_id: session });
    expect(calls().filter((c) => c.includes('GATE-V'))).toEqual(['note GATE-V before', 'gate GATE-V', 'note GATE-V after the gate']);
  });

  it('makes no tool call after Stop, even when the call it was waiting on answers later; every viewer gets the cancelled result', async () => {
    const response = await ask(serve.url, { question: 'Run GATE-A' });
    const session = sessionOf(response);
    const events = sseEvents(response);
    await until(events, (e) => e.event === 'tool_call' && e.data.phase === 'start' && e.data.record.tool === 'gate');
    const other = sseEvents(await joinQuestion(serve.url, session));
    expect((await stopQuestion(serve.url, session)).status).toBe(200);
    for (const stream of [events, other]) expect((await until(stream, (e) => e.event === 'result')).data).toMatchObject({ status: 'cancelled' });
    // The slot is held until the plan has really ended.
    await pollUntil(running, (n) => n === 0);
    expect((await stopQuestion(serve.url, session)).status).toBe(404);
    // The gate the plan was waiting on now answers; the cancelled plan must not go on to its next call.
    release('GATE-A');
    expect(await jsonOf(ask(serve.url, { question: 'Run NOTE-B' }, { sse: false }))).toMatchObject({ status: 'answered', answer: 'noted' });
    expect(calls().filter((c) => !c.includes('GATE-V'))).toEqual(['note GATE-A before', 'gate GATE-A', 'note NOTE-B']);
  });

  it('cancels a plain JSON question when its connection closes: no call after the one it was waiting on', async () => {
    const asker = new AbortController();
    const closed = ask(serve.url, { question: 'Run GATE-J' }, { sse: false, signal: asker.signal }).then(
      () => 'answered',
      () => 'closed',
    );
    await pollUntil(async () => (await running(), calls()), (made) => made.includes('gate GATE-J'));
    asker.abort();
    expect(await closed).toBe('closed');
    // The slot is held until the plan has really ended.
    await pollUntil(running, (n) => n === 0);
    release('GATE-J');
    expect(await jsonOf(ask(serve.url, { question: 'Run NOTE-J' }, { sse: false }))).toMatchObject({ status: 'answered', answer: 'noted' });
    expect(calls().filter((c) => c.includes('-J'))).toEqual(['note GATE-J before', 'gate GATE-J', 'note NOTE-J']);
  });

  it('answers the next question after 8 quick cancels, with none of their plans running or queued', async () => {
    const before = calls().length;
    const questions = Array.from({ length: 8 }, (_, i) => {
      const tag = `GATE-C${i}`;
      const response = ask(serve.url, { question: `Run ${tag}` });
      return { tag, response, events: response.then(sseEvents) };
    });
    // Every plan is handed to the sandbox: two hold both workers at their gates, six wait for a worker.
    await Promise.all(questions.map(async (q) => until(await q.events, (e) => e.event === 'running')));
    await pollUntil(async () => (await running(), calls().filter((c) => c.startsWith('gate GATE-C')).length), (n) => n === 2);
    for (const q of questions) expect((await stopQuestion(serve.url, sessionOf(await q.response))).status).toBe(200);
    await pollUntil(running, (n) => n === 0);
    // Were any cancelled plan still holding a worker, this question would wait on a gate that never opens.
    expect(await jsonOf(ask(serve.url, { question: 'Run NOTE-D' }, { sse: false }))).toMatchObject({ status: 'answered', answer: 'noted' });
    const made = calls().slice(before);
    expect(made.at(-1)).toBe('note NOTE-D');
    expect(made.filter((c) => c.startsWith('gate'))).toHaveLength(2);
    // Only the two plans that had a worker made calls, and none went past its gate.
    expect(made.filter((c) => c.includes('after the gate'))).toEqual([]);
    expect(made).toHaveLength(5);
    expect(await running()).toBe(0);
  });
});

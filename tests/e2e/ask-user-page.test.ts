// ask_user() under `cortex serve`: the question streaming the answer gets an `elicitation` event and the page's answer reaches the plan.
import { afterEach, describe, expect, it } from 'vitest';
import { ollamaChatReply } from '../helpers/fake-ollama-server.js';
import type { FakeLlmServer } from '../helpers/fake-ollama-server.js';
import { fenced, planningOllama, tempProject } from './ask-harness.js';
import { ask, eventsUntil, jsonOf, ollamaEnv, startServe, type ServeRun } from './serve-harness.js';

const PLAN = fenced(`async function solve() {
  try { return "FINAL_ANSWER: a table for " + (await ask_user("For how many people?", { choices: ["2", "4"] })); }
  catch (e) { return "FINAL_ANSWER: " + e.message; }
}`);

let llm: FakeLlmServer | undefined;
let serve: ServeRun | undefined;
afterEach(async () => {
  await serve?.stop();
  await llm?.close();
  serve = llm = undefined;
});

describe('ask_user() on the page', () => {
  it("sends the question as Cortex-R's own form on the stream and gives the plan the page's answer; a plain JSON request has nobody to ask", async () => {
    llm = await planningOllama(() => ollamaChatReply(PLAN));
    serve = await startServe(tempProject().profile, ollamaEnv(llm.url));
    const streamed = await ask(serve.url, { question: 'Book a table' });
    const { events, rest } = await eventsUntil(streamed, (e) => e.event === 'elicitation');
    const asked = events.find((e) => e.event === 'elicitation')!.data;
    expect(asked).toMatchObject({ server: 'Cortex-R', question: true, mode: 'form', message: 'For how many people?', required: ['answer'], fields: { answer: { type: 'string', enum: ['2', '4'] } } });
    const posted = await fetch(`${serve.url}/v1/elicitations/${asked.id}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ action: 'accept', content: { answer: '4' } }) });
    expect(posted.status).toBe(200);
    expect((await rest()).find((e) => e.event === 'result')?.data).toMatchObject({ status: 'answered', answer: 'a table for 4' });

    const plain = await jsonOf(ask(serve.url, { question: 'Book a table' }, { sse: false }));
    expect(plain.answer).toMatch(/^ask_user could not ask: nobody is there to answer/);
  }, 60_000);
});

// A question that outlives one tools/call: its questions to the client, its answers, its cancel and its progress.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MAX_ELICITATION_WAIT_MS, type ElicitationAnswer, type ElicitationRequest } from '../../src/mcp/elicitation.js';
import { QuestionRun } from '../../src/serve/mcp/question-run.js';

const FORM: ElicitationRequest = { server: 'booking', mode: 'form', message: 'Who is the table for?', fields: { name: { type: 'string' } }, required: ['name'] };
const live = () => new AbortController().signal;

describe('QuestionRun', () => {
  afterEach(() => vi.useRealTimers());

  it('stops at a question, hands it to the call, and goes on with the answer the next call brings', async () => {
    const run = new QuestionRun(async ({ ask, signal }) => {
      const answer = await ask(FORM, signal);
      return answer.action === 'accept' ? `booked for ${String(answer.content?.name)}` : 'not booked';
    });
    const first = await run.next(live());
    expect(first).toEqual({ kind: 'ask', key: 'q1', request: FORM });
    run.answer(new Map([['q1', { action: 'accept', content: { name: 'Ada' } }]]), ['q1']);
    expect(await run.next(live())).toEqual({ kind: 'done', result: 'booked for Ada' });
  });

  it('takes a question the retry did not answer as cancelled', async () => {
    const answers: ElicitationAnswer[] = [];
    const run = new QuestionRun(async ({ ask, signal }) => answers.push(await ask(FORM, signal)));
    await run.next(live());
    run.answer(new Map(), ['q1']);
    await run.next(live());
    expect(answers).toEqual([{ action: 'cancel' }]);
  });

  it('cancels the question when the call waiting on it is cancelled', async () => {
    const run = new QuestionRun(
      ({ signal }) => new Promise<string>((resolve) => (signal.aborted ? resolve('cancelled') : signal.addEventListener('abort', () => resolve('cancelled')))),
    );
    const call = new AbortController();
    const step = run.next(call.signal);
    call.abort();
    expect(await step).toBeNull();
    await run.ended;
    expect(await run.next(live())).toEqual({ kind: 'done', result: 'cancelled' });
  });

  it('sends events to the call in progress only', async () => {
    const seen: string[] = [];
    const run = new QuestionRun(async ({ ask, onEvent, signal }) => {
      onEvent({ type: 'perceiving' } as never);
      await ask(FORM, signal);
      onEvent({ type: 'planning' } as never);
      return 'done';
    });
    run.sink = (event) => seen.push(`first:${event.type}`);
    await run.next(live());
    run.sink = null;
    run.answer(new Map(), ['q1']);
    run.sink = (event) => seen.push(`second:${event.type}`);
    await run.next(live());
    expect(seen).toEqual(['first:perceiving', 'second:planning']);
  });

  it('gives up on the whole question when no call comes back with an answer in time', async () => {
    vi.useFakeTimers();
    const run = new QuestionRun(async ({ ask, signal }) => ({ answer: await ask(FORM, signal), cancelled: signal.aborted }));
    await run.next(live());
    await vi.advanceTimersByTimeAsync(MAX_ELICITATION_WAIT_MS);
    expect(await run.next(live())).toEqual({ kind: 'done', result: { answer: { action: 'cancel', reason: 'no answer came back from the MCP client' }, cancelled: true } });
  });

  it('reports a run that threw as failed', async () => {
    const run = new QuestionRun(async () => {
      throw new Error('no LLM');
    });
    expect(await run.next(live())).toMatchObject({ kind: 'failed', error: new Error('no LLM') });
  });
});

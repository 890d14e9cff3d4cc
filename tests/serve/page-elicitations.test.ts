import { describe, expect, it } from 'vitest';
import type { ElicitationRequest } from '../../src/mcp/elicitation.js';
import { ApiError } from '../../src/serve/api-error.js';
import { PageElicitations } from '../../src/serve/page-elicitations.js';

const BOOKING: ElicitationRequest = {
  server: 'booking',
  mode: 'form',
  message: 'Who is the table for?',
  fields: { name: { type: 'string', title: 'Name' }, guests: { type: 'integer', minimum: 1 }, seating: { type: 'string', enum: ['inside', 'outside'] }, vegan: { type: 'boolean' } },
  required: ['name', 'guests'],
};

/** A stream that records what it was sent. */
function recorder(open = true) {
  const sent: Array<{ event: string; data: any }> = [];
  return { sent, send: (event: string, data: unknown) => (sent.push({ event, data }), open) };
}

const never = () => new AbortController().signal;

function refusal(fn: () => void): ApiError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  throw new Error('expected an ApiError');
}

describe('PageElicitations', () => {
  it('sends the request as an event and resolves with the checked answer, then says it ended', async () => {
    const registry = new PageElicitations();
    const stream = recorder();
    const answer = registry.forStream(stream.send, never())(BOOKING, { signal: never() });
    const [asked] = stream.sent;
    expect(asked).toMatchObject({ event: 'elicitation', data: { server: 'booking', mode: 'form', message: 'Who is the table for?', required: ['name', 'guests'] } });
    expect(asked!.data.fields.guests).toEqual({ type: 'integer', minimum: 1 });
    registry.answer(asked!.data.id, { action: 'accept', content: { name: 'Ada', guests: 4, vegan: true } });
    expect(await answer).toEqual({ action: 'accept', content: { name: 'Ada', guests: 4, vegan: true } });
    expect(stream.sent[1]).toEqual({ event: 'elicitation_end', data: { id: asked!.data.id, action: 'accept' } });
    expect(registry.size).toBe(0);
  });

  it('refuses content that does not fit the form and keeps waiting for a corrected answer', async () => {
    const registry = new PageElicitations();
    const stream = recorder();
    const answer = registry.forStream(stream.send, never())(BOOKING, { signal: never() });
    const id = stream.sent[0]!.data.id as string;
    expect(refusal(() => registry.answer(id, { action: 'accept', content: { name: 'Ada' } })).message).toMatch(/^guests: /);
    expect(refusal(() => registry.answer(id, { action: 'accept', content: { name: 'Ada', guests: 2.5 } })).message).toMatch(/^guests: /);
    expect(refusal(() => registry.answer(id, { action: 'accept', content: { name: 'Ada', guests: 0 } })).message).toMatch(/^guests: /);
    expect(refusal(() => registry.answer(id, { action: 'accept', content: { name: 'Ada', guests: 2, seating: 'roof' } })).message).toMatch(/^seating: /);
    expect(refusal(() => registry.answer(id, { action: 'accept', content: { name: 'Ada', guests: 2, admin: true } })).message).toBe('unknown field(s): admin');
    expect(refusal(() => registry.answer(id, { action: 'maybe' })).status).toBe(400);
    expect(refusal(() => registry.answer(id, { action: 'decline', content: { name: 'Ada' } })).status).toBe(400);
    expect(registry.size).toBe(1);
    registry.answer(id, { action: 'decline' });
    expect(await answer).toEqual({ action: 'decline' });
  });

  it('answers 404 for an id nothing waits under, including one already answered', async () => {
    const registry = new PageElicitations();
    const stream = recorder();
    const answer = registry.forStream(stream.send, never())(BOOKING, { signal: never() });
    const id = stream.sent[0]!.data.id as string;
    expect(refusal(() => registry.answer('not-an-id', { action: 'decline' })).status).toBe(404);
    registry.answer(id, { action: 'cancel' });
    await answer;
    expect(refusal(() => registry.answer(id, { action: 'decline' })).code).toBe('elicitation_not_found');
  });

  it('cancels when the question is cancelled, when the server gives up, and when the stream is already closed', async () => {
    const registry = new PageElicitations();
    const question = new AbortController();
    const stream = recorder();
    const byQuestion = registry.forStream(stream.send, question.signal)(BOOKING, { signal: never() });
    question.abort();
    expect(await byQuestion).toEqual({ action: 'cancel' });
    expect(stream.sent.at(-1)).toMatchObject({ event: 'elicitation_end', data: { action: 'cancel' } });

    const server = new AbortController();
    const byServer = registry.forStream(stream.send, never())(BOOKING, { signal: server.signal });
    server.abort();
    expect(await byServer).toEqual({ action: 'cancel' });

    expect(await registry.forStream(recorder(false).send, never())(BOOKING, { signal: never() })).toEqual({ action: 'cancel' });
    expect(registry.size).toBe(0);
  });

  it('cancels a request nobody answers within the maximum wait', async () => {
    const registry = new PageElicitations(1);
    const stream = recorder();
    expect(await registry.forStream(stream.send, never())(BOOKING, { signal: never() })).toEqual({ action: 'cancel' });
    expect(registry.size).toBe(0);
  });

  it('accepts a URL request without content', async () => {
    const registry = new PageElicitations();
    const stream = recorder();
    const request: ElicitationRequest = { server: 'pay', mode: 'url', message: 'Confirm the payment', url: 'https://pay.example/confirm?x=1', elicitationId: 'e1' };
    const answer = registry.forStream(stream.send, never())(request, { signal: never() });
    expect(stream.sent[0]!.data).toMatchObject({ mode: 'url', url: 'https://pay.example/confirm?x=1' });
    registry.answer(stream.sent[0]!.data.id, { action: 'accept' });
    expect(await answer).toEqual({ action: 'accept' });
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { ElicitationRouter, TWO_QUESTIONS_ASKING } from '../../src/mcp/elicitation-router.js';
import { NOBODY_TO_ASK, type Elicit, type ElicitationRequest } from '../../src/mcp/elicitation.js';
import { MultiMcp } from '../../src/mcp/multi-mcp.js';
import type { ToolCaller, ToolResult } from '../../src/mcp/types.js';
import { httpSpec, startHttpFixture, type HttpFixture } from './http-fixture.js';

let fixture: HttpFixture | undefined;
let multi: MultiMcp | undefined;
afterEach(async () => {
  await multi?.close();
  await fixture?.close();
  multi = fixture = undefined;
});

const form = (server: string): ElicitationRequest => ({ server, mode: 'form', message: 'Who?', fields: { name: { type: 'string' } }, required: ['name'] });

/** A caller whose every call is a server asking through `router` mid-call, returning the answer it got. */
function askingCaller(router: ElicitationRouter): ToolCaller {
  return {
    async callTool(server) {
      const answer = await router.elicit(form(server), { signal: new AbortController().signal });
      return { content: [{ type: 'text', text: JSON.stringify(answer) }] } as unknown as ToolResult;
    },
  };
}

/** An Elicit that answers with its owner's name, recording what it was shown. */
function person(name: string): Elicit & { seen: string[] } {
  const seen: string[] = [];
  return Object.assign(async (request: ElicitationRequest) => {
    seen.push(request.server);
    return { action: 'accept' as const, content: { name } };
  }, { seen });
}

describe('ElicitationRouter', () => {
  it("sends each server's request to the question calling it, never to another running question", async () => {
    const router = new ElicitationRouter();
    const inner = askingCaller(router);
    const ada = person('Ada');
    const bob = person('Bob');
    const first = router.question(inner, ada);
    const second = router.question(inner, bob);
    const [a, b] = await Promise.all([first.caller.callTool('booking-a', 'book', {}), second.caller.callTool('booking-b', 'book', {})]);
    expect(JSON.parse((a.content[0] as { text: string }).text)).toEqual({ action: 'accept', content: { name: 'Ada' } });
    expect(JSON.parse((b.content[0] as { text: string }).text)).toEqual({ action: 'accept', content: { name: 'Bob' } });
    expect(ada.seen).toEqual(['booking-a']);
    expect(bob.seen).toEqual(['booking-b']);
    first.done();
    second.done();
  });

  it('declines, showing nobody, when two questions call the same server at once', async () => {
    const router = new ElicitationRouter();
    const ada = person('Ada');
    const bob = person('Bob');
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const holding: ToolCaller = { callTool: async () => (await held, { content: [] } as unknown as ToolResult) };
    const first = router.question(holding, ada);
    const second = router.question(askingCaller(router), bob);
    const waiting = first.caller.callTool('booking', 'book', {});
    const answer = await second.caller.callTool('booking', 'book', {});
    expect(JSON.parse((answer.content[0] as { text: string }).text)).toEqual({ action: 'decline', reason: TWO_QUESTIONS_ASKING });
    expect([...ada.seen, ...bob.seen]).toEqual([]);
    release();
    await waiting;
  });

  it('declines with the reason when the calling question has nobody to ask (plain JSON, `cortex mcp`), or no question calls the server', async () => {
    const router = new ElicitationRouter();
    const plain = router.question(askingCaller(router));
    const answer = await plain.caller.callTool('booking', 'book', {});
    expect(JSON.parse((answer.content[0] as { text: string }).text)).toEqual({ action: 'decline', reason: NOBODY_TO_ASK });
    plain.done();
    expect(await router.elicit(form('booking'), { signal: new AbortController().signal })).toEqual({ action: 'decline', reason: NOBODY_TO_ASK });
  });

  it('stops routing to a question once its call has returned or it is done', async () => {
    const router = new ElicitationRouter();
    const ada = person('Ada');
    const question = router.question({ callTool: async () => ({ content: [] }) as unknown as ToolResult }, ada);
    await question.caller.callTool('booking', 'book', {});
    expect(await router.elicit(form('booking'), { signal: new AbortController().signal })).toMatchObject({ action: 'decline' });
    question.done();
    expect(ada.seen).toEqual([]);
  });

  it("routes a real server's request to the calling question, and tells the server why when nobody can answer", async () => {
    const router = new ElicitationRouter();
    fixture = await startHttpFixture();
    multi = await MultiMcp.start([httpSpec('asker', fixture.url)], { elicit: router.elicit });
    const parsed = (r: ToolResult) => JSON.parse((r.content[0] as { text: string }).text).result;
    const paged = router.question(multi, person('Ada'));
    expect(parsed(await paged.caller.callTool('asker', 'ask_user', {}))).toEqual({ action: 'accept', content: { name: 'Ada' } });
    paged.done();
    const plain = router.question(multi);
    expect(parsed(await plain.caller.callTool('asker', 'ask_user', {}))).toEqual({ action: 'decline', _meta: { 'cortex-r/reason': NOBODY_TO_ASK } });
    plain.done();
  });
});

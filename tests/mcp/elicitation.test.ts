// Elicitation: a server's request for input reaches the person (form and URL modes), or is declined with the reason.
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { answerElicitation, NOBODY_TO_ASK, type Elicit, type ElicitationRequest } from '../../src/mcp/elicitation.js';
import { MultiMcp } from '../../src/mcp/multi-mcp.js';
import { terminalElicit } from '../../src/cli/terminal-elicit.js';
import { httpSpec, startHttpFixture, type HttpFixture } from './http-fixture.js';

const parsed = (r: { content: Array<{ text?: string }> }) => JSON.parse(r.content[0]!.text!).result;
let fixture: HttpFixture | undefined;
let other: HttpFixture | undefined;
let multi: MultiMcp | undefined;
afterEach(async () => {
  other?.release();
  await multi?.close();
  await fixture?.close();
  await other?.close();
  multi = fixture = other = undefined;
});

async function start(elicit?: Elicit): Promise<MultiMcp> {
  fixture = await startHttpFixture();
  multi = await MultiMcp.start([httpSpec('asker', fixture.url)], elicit ? { elicit } : {});
  return multi;
}

/** A terminal whose person types `lines` one by one as they are asked. */
function terminal(lines: string[]) {
  const input = new PassThrough();
  const output = new PassThrough();
  let shown = '';
  output.on('data', (d: Buffer) => {
    shown += d.toString();
    // Each prompt ends without a newline: answer it.
    if (/[:\]] $/.test(shown) && lines.length) input.write(`${lines.shift()}\n`);
  });
  const opened: string[] = [];
  return { elicit: terminalElicit({ input, output, open: (url) => opened.push(url) }), shown: () => shown, opened };
}

describe('elicitation', () => {
  it('passes a form request to the person, naming the server, and returns their answer to the server', async () => {
    const seen: ElicitationRequest[] = [];
    const m = await start(async (request) => {
      seen.push(request);
      return { action: 'accept', content: { name: 'Ada', age: 36 } };
    });
    expect(parsed(await m.callTool('asker', 'ask_user', {}))).toEqual({ action: 'accept', content: { name: 'Ada', age: 36 } });
    expect(seen[0]).toMatchObject({ server: 'asker', mode: 'form', message: 'Who are you?', required: ['name'] });
  });

  it('declines with the reason when nobody can answer', async () => {
    const m = await start();
    expect(parsed(await m.callTool('asker', 'ask_user', {}))).toEqual({ action: 'decline', _meta: { 'cortex-r/reason': NOBODY_TO_ASK } });
  });

  it('asks on a terminal field by field, re-asking a bad number, and the server gets typed values', async () => {
    const t = terminal(['y', 'Ada', 'old', '36']);
    const m = await start(t.elicit);
    expect(parsed(await m.callTool('asker', 'ask_user', {}))).toEqual({ action: 'accept', content: { name: 'Ada', age: 36 } });
    expect(t.shown()).toContain('The MCP server "asker" asks: Who are you?');
    expect(t.shown()).toContain('Expected an integer');
  });

  it('shows a URL request whole and opens it only when the person says yes', async () => {
    const yes = terminal(['y']);
    const m = await start(yes.elicit);
    expect(parsed(await m.callTool('asker', 'ask_visit', {}))).toEqual({ action: 'accept' });
    expect(yes.shown()).toContain('It wants you to open: https://pay.example.com/confirm?id=7');
    expect(yes.opened).toEqual(['https://pay.example.com/confirm?id=7']);
  });

  it('declines on a terminal when the person says no', async () => {
    const no = terminal(['n']);
    const m = await start(no.elicit);
    expect(parsed(await m.callTool('asker', 'ask_user', {}))).toEqual({ action: 'decline' });
  });
});

describe('the time a person takes to answer', () => {
  const CALL_TIMEOUT_MS = 300;
  const FORM = { mode: 'form' as const, message: 'Who are you?', requestedSchema: { type: 'object' as const, properties: { name: { type: 'string' as const } } } };

  it("is not counted against the call's time limit: answered after a silent call beside it timed out, the call succeeds", async () => {
    fixture = await startHttpFixture();
    other = await startHttpFixture();
    const waits = { started: 0, ended: 0 };
    let silentFailure = '';
    const elicit: Elicit = async () => {
      // The person answers only once a call made now, with the same time limit, has timed out on another server.
      await multi!.callTool('other', 'wait_silently', {}, { timeoutMs: CALL_TIMEOUT_MS }).catch((err: Error) => { silentFailure = err.message; });
      return { action: 'accept', content: { name: 'Ada', age: 36 } };
    };
    multi = await MultiMcp.start([httpSpec('asker', fixture.url), httpSpec('other', other.url)], { elicit });
    const result = await multi.callTool('asker', 'ask_user', {}, {
      timeoutMs: CALL_TIMEOUT_MS,
      onWaitingForUser: () => {
        waits.started++;
        return () => { waits.ended++; };
      },
    });
    expect(silentFailure).toMatch(/timed out/i);
    expect(parsed(result)).toEqual({ action: 'accept', content: { name: 'Ada', age: 36 } });
    expect(waits).toEqual({ started: 1, ended: 1 });
  });

  it('is bounded: a request nobody answers is cancelled after the longest wait, telling the server and the person why', async () => {
    const output = new PassThrough();
    let shown = '';
    output.on('data', (d: Buffer) => (shown += d.toString()));
    // A person who never types anything.
    const elicit = terminalElicit({ output, ask: (_q, signal) => new Promise((resolve) => signal.addEventListener('abort', () => resolve(null))) });
    const result = await answerElicitation('booking', FORM, elicit, new AbortController().signal, 1_000);
    expect(result).toEqual({ action: 'cancel', _meta: { 'cortex-r/reason': 'No answer came within 1 second, so the question from "booking" was cancelled.' } });
    expect(shown).toContain('No answer came within 1 second, so the question from "booking" was cancelled.');
  });

  it('is bounded even when the way of asking ignores its signal', async () => {
    const never: Elicit = () => new Promise(() => undefined);
    const result = await answerElicitation('booking', FORM, never, new AbortController().signal, 1_000);
    expect(result).toMatchObject({ action: 'cancel', _meta: { 'cortex-r/reason': expect.stringMatching(/^No answer came within 1 second/) } });
  });
});

// Elicitation: a server's request for input reaches the person (form and URL modes), or is declined with the reason.
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { NOBODY_TO_ASK, type Elicit, type ElicitationRequest } from '../../src/mcp/elicitation.js';
import { MultiMcp } from '../../src/mcp/multi-mcp.js';
import { terminalElicit } from '../../src/mcp/terminal-elicit.js';
import { httpSpec, startHttpFixture, type HttpFixture } from './http-fixture.js';

const parsed = (r: { content: Array<{ text?: string }> }) => JSON.parse(r.content[0]!.text!).result;
let fixture: HttpFixture | undefined;
let multi: MultiMcp | undefined;
afterEach(async () => {
  await multi?.close();
  await fixture?.close();
  multi = fixture = undefined;
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

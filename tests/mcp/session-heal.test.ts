// Sessions that heal: a Streamable HTTP server restarted between two calls is reconnected, and the call sent again when it is safe.
import { afterEach, describe, expect, it } from 'vitest';
import { MultiMcp } from '../../src/mcp/multi-mcp.js';
import { httpSpec, startHttpFixture, type HttpFixture } from './http-fixture.js';

const parsed = (r: { content: Array<{ text?: string }> }) => JSON.parse(r.content[0]!.text!).result;
let fixture: HttpFixture | undefined;
let multi: MultiMcp | undefined;

afterEach(async () => {
  await multi?.close();
  await fixture?.close();
  multi = fixture = undefined;
});

describe('MultiMcp with a restarted Streamable HTTP server', () => {
  it('reconnects to a server restarted between two calls, and answers a read-only call', async () => {
    fixture = await startHttpFixture({ unknownSession: 404 });
    multi = await MultiMcp.start([httpSpec('remote', fixture.url)]);
    expect(parsed(await multi.callTool('remote', 'echo', { message: 'first' }))).toBe('first');
    // Whether the next request meets a closed kept-alive socket or a 404 for its session, it is answered.
    await fixture.restart();
    expect(parsed(await multi.callTool('remote', 'echo', { message: 'second' }))).toBe('second');
    expect(fixture.sessions).toBe(2);
    expect(parsed(await multi.callTool('remote', 'echo', { message: 'third' }))).toBe('third');
    expect(fixture.sessions).toBe(2);
  });

  // 404 as the spec says; 400 "No valid session ID" as servers built on the SDK examples answer.
  it.each([404, 400] as const)('sends a state-changing call again after a %i for its session, since the server never ran it', async (unknownSession) => {
    fixture = await startHttpFixture({ unknownSession });
    multi = await MultiMcp.start([httpSpec('remote', fixture.url)]);
    await multi.callTool('remote', 'append', { item: 'a' });
    await fixture.forgetSessions();
    expect(parsed(await multi.callTool('remote', 'append', { item: 'b' }))).toBe('appended b');
    // Once before the restart, once after: the refused request was not run, the retry ran once.
    expect(fixture.calls.get('append')).toBe(2);
    expect(fixture.sessions).toBe(2);
  });

  it('says the server cannot be reached when it is down, instead of keeping the dead session', async () => {
    fixture = await startHttpFixture();
    multi = await MultiMcp.start([httpSpec('remote', fixture.url)]);
    await fixture.close();
    await expect(multi.callTool('remote', 'echo', { message: 'x' })).rejects.toThrow(/"remote".*could not start/s);
  });
});

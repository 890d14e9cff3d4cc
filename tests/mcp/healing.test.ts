// Healing with no lifetime cap: a Streamable HTTP server stopped and started again many times is brought back each time, with back-off while it is down.
import { afterEach, describe, expect, it } from 'vitest';
import { HEAL_FIRST_DELAY_MS, HEAL_MAX_DELAY_MS, type ServerStateEvent } from '../../src/mcp/healing.js';
import { MultiMcp } from '../../src/mcp/multi-mcp.js';
import { ManualHealTimer } from '../helpers/manual-heal-timer.js';
import { httpSpec, startHttpFixture, type HttpFixture } from './http-fixture.js';

/** More than the old lifetime cap of restarts (the sixth one used to be refused for good). */
const CYCLES = 8;
const parsed = (r: { content: Array<{ text?: string }> }) => JSON.parse(r.content[0]!.text!).result;

let fixture: HttpFixture | undefined;
let multi: MultiMcp | undefined;

afterEach(async () => {
  await multi?.close();
  await fixture?.close();
  multi = fixture = undefined;
});

/** Status events as they come, and a wait for the next one of a given state. */
function stateEvents() {
  const seen: ServerStateEvent[] = [];
  let waiter: { state: ServerStateEvent['state']; resolve: (e: ServerStateEvent) => void } | undefined;
  return {
    seen,
    onServerState(event: ServerStateEvent) {
      seen.push(event);
      if (waiter?.state === event.state) {
        waiter.resolve(event);
        waiter = undefined;
      }
    },
    next(state: ServerStateEvent['state']): Promise<ServerStateEvent> {
      return new Promise((resolve) => (waiter = { state, resolve }));
    },
  };
}

describe('healing a server that goes away', () => {
  it(`brings a server stopped and started ${CYCLES} times back every time, saying it is reconnecting meanwhile`, async () => {
    fixture = await startHttpFixture();
    const timer = new ManualHealTimer();
    const events = stateEvents();
    multi = await MultiMcp.start([httpSpec('remote', fixture.url)], { healTimer: timer, onServerState: events.onServerState });
    expect(parsed(await multi.callTool('remote', 'echo', { message: 'start' }))).toBe('start');
    for (let cycle = 1; cycle <= CYCLES; cycle++) {
      await fixture.down();
      await expect(multi.callTool('remote', 'echo', { message: 'lost' })).rejects.toThrow(/"remote": could not start/);
      expect(multi.statuses()[0]).toMatchObject({ state: 'reconnecting', reconnect: { attempts: 1, retryInMs: HEAL_FIRST_DELAY_MS } });
      await fixture.up();
      const back = events.next('ready');
      expect(timer.fire()).toBe(1);
      await back;
      expect(multi.statuses()[0]!.state).toBe('ready');
      expect(parsed(await multi.callTool('remote', 'echo', { message: `cycle ${cycle}` }))).toBe(`cycle ${cycle}`);
    }
    expect(fixture.sessions).toBe(CYCLES + 1);
    expect(events.seen.map((e) => e.state)).toEqual(Array.from({ length: CYCLES }, () => ['reconnecting', 'ready']).flat());
  });

  it('backs off exponentially up to its cap while the server stays down, refuses calls at once meanwhile, and recovers', async () => {
    fixture = await startHttpFixture();
    const timer = new ManualHealTimer();
    const events = stateEvents();
    multi = await MultiMcp.start([httpSpec('remote', fixture.url)], { healTimer: timer, onServerState: events.onServerState });
    await fixture.down();
    await expect(multi.callTool('remote', 'echo', { message: 'lost' })).rejects.toThrow(/could not start/);
    // While it waits to be retried, a call is answered at once with the state, and starts nothing.
    await expect(multi.callTool('remote', 'echo', { message: 'again' })).rejects.toThrow(
      /"remote": is down \(1 restart without an answer, next try in 1 s; last: .*\); it is being brought back in the background/,
    );
    const attempts = 12;
    for (let i = 0; i < attempts; i++) {
      const failed = events.next('reconnecting');
      timer.fire();
      await failed;
    }
    const expected = Array.from({ length: attempts + 1 }, (_, i) => Math.min(HEAL_FIRST_DELAY_MS * 2 ** i, HEAL_MAX_DELAY_MS));
    expect(timer.delays).toEqual(expected);
    expect(timer.delays.at(-1)).toBe(HEAL_MAX_DELAY_MS);
    expect(multi.statuses()[0]).toMatchObject({ state: 'reconnecting', reconnect: { attempts: attempts + 1, retryInMs: HEAL_MAX_DELAY_MS } });
    await fixture.up();
    const back = events.next('ready');
    timer.fire();
    await back;
    expect(parsed(await multi.callTool('remote', 'echo', { message: 'back' }))).toBe('back');
    expect(multi.statuses()[0]).toMatchObject({ state: 'ready' });
  });
});

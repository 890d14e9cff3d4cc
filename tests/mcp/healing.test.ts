// Healing with no lifetime cap: a Streamable HTTP server stopped and started again many times is brought back each time, with back-off while it is down.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HEAL_FIRST_DELAY_MS, HEAL_MAX_DELAY_MS, type ServerStateEvent } from '../../src/mcp/healing.js';
import { MultiMcp } from '../../src/mcp/multi-mcp.js';
import { PROJECT_ROOT } from '../../src/paths.js';
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
      /^MCP server "remote": is down \(1 restart without an answer, next try in 1 s; last: could not start: .*\); it is being brought back in the background$/,
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

describe('healing a server that speaks only 2026-07-28', () => {
  const MODERN_ONLY = join(PROJECT_ROOT, 'tests', 'fixtures', 'modern-only-server.mjs');
  let child: ChildProcess | undefined;

  /** The modern-only fixture over Streamable HTTP on `port` (0: any); resolves with the port once it listens. */
  function startModern(port: number): Promise<number> {
    child = spawn(process.execPath, [MODERN_ONLY, '--http', String(port)], { stdio: ['ignore', 'pipe', 'ignore'] });
    const started = child;
    return new Promise((resolve, reject) => {
      started.stdout!.once('data', (d: Buffer) => resolve(Number(d.toString().trim())));
      started.on('exit', (code) => reject(new Error(`modern-only server exited (${code})`)));
    });
  }
  function stopModern(): Promise<void> {
    const running = child!;
    return new Promise((resolve) => {
      running.once('exit', () => resolve());
      running.kill();
    });
  }
  afterEach(() => {
    child?.kill();
  });

  it('brings it back after it was stopped and started again, on the same protocol', async () => {
    const port = await startModern(0);
    const timer = new ManualHealTimer();
    const events = stateEvents();
    multi = await MultiMcp.start([httpSpec('modern', `http://127.0.0.1:${port}/mcp`)], { healTimer: timer, onServerState: events.onServerState });
    expect((await multi.callTool('modern', 'add', { a: 1, b: 2 })).content).toEqual([{ type: 'text', text: '3' }]);
    for (let cycle = 1; cycle <= 3; cycle++) {
      await stopModern();
      await expect(multi.callTool('modern', 'add', { a: cycle, b: 1 })).rejects.toThrow(/"modern": could not start/);
      expect(multi.statuses()[0]).toMatchObject({ state: 'reconnecting' });
      await startModern(port);
      const back = events.next('ready');
      timer.fire();
      await back;
      expect(multi.statuses()[0]).toMatchObject({ state: 'ready', protocolVersion: '2026-07-28' });
      expect((await multi.callTool('modern', 'add', { a: cycle, b: 1 })).content).toEqual([{ type: 'text', text: String(cycle + 1) }]);
    }
  });
});

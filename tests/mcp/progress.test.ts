// Progress: a progressToken is sent, each notification restarts a tool's wait up to a maximum, and the display hears of it.
import { afterEach, describe, expect, it } from 'vitest';
import { MultiMcp } from '../../src/mcp/multi-mcp.js';
import type { ToolProgress } from '../../src/mcp/types.js';
import { ToolProxy } from '../../src/sandbox/tool-proxy.js';
import type { ToolCallRecord } from '../../src/sandbox/types.js';
import { describeEvent } from '../../src/runtime/describe-event.js';
import { httpSpec, startHttpFixture, PROGRESS_INTERVAL_MS, type HttpFixture } from './http-fixture.js';

/** The call's own wait: several progress intervals, so one late notification on a busy machine does not end it. */
const WAIT_MS = 20 * PROGRESS_INTERVAL_MS;
/** Progress notifications heard before the test lets the tool answer: together they span more than WAIT_MS. */
const NOTIFICATIONS_BEFORE_RELEASE = 2 * (WAIT_MS / PROGRESS_INTERVAL_MS);

let fixture: HttpFixture | undefined;
let multi: MultiMcp | undefined;
afterEach(async () => {
  await multi?.close();
  await fixture?.close();
  multi = fixture = undefined;
});

async function start(): Promise<{ fixture: HttpFixture; multi: MultiMcp }> {
  fixture = await startHttpFixture();
  multi = await MultiMcp.start([httpSpec('slow', fixture.url)]);
  return { fixture, multi };
}

describe('tool calls that report progress', () => {
  it('outlive their timeout while progress keeps coming, and pass each report on', async () => {
    const { fixture, multi } = await start();
    const heard: ToolProgress[] = [];
    const res = await multi.callTool('slow', 'wait_with_progress', {}, {
      timeoutMs: WAIT_MS,
      onProgress: (p) => {
        heard.push(p);
        if (heard.length === NOTIFICATIONS_BEFORE_RELEASE) fixture.release();
      },
    });
    expect(JSON.parse(res.content[0]!.text!).result).toBe('done');
    expect(heard.length).toBeGreaterThanOrEqual(NOTIFICATIONS_BEFORE_RELEASE);
    expect(heard[2]).toEqual({ progress: 3, message: 'step 3' });
  });

  it('still time out when the server says nothing', async () => {
    const { multi } = await start();
    await expect(multi.callTool('slow', 'wait_silently', {}, { timeoutMs: WAIT_MS })).rejects.toThrow(/timed out/i);
  });

  it('end at the maximum total time however much progress comes', async () => {
    const { multi } = await start();
    await expect(multi.callTool('slow', 'wait_with_progress', {}, { timeoutMs: WAIT_MS, maxTotalTimeoutMs: 2 * WAIT_MS })).rejects.toThrow(/timed out: still working after 2000 ms, the longest a call may take/);
  });

  it('through the sandbox proxy: progress restarts its own wait and is shown as the call goes on', async () => {
    const { fixture, multi } = await start();
    const events: Array<{ phase: string; record: ToolCallRecord }> = [];
    let progressEvents = 0;
    const proxy = new ToolProxy({
      tools: multi.listTools(),
      caller: multi,
      maxToolCalls: 5,
      toolTimeoutMs: WAIT_MS,
      remainingMs: () => Number.MAX_SAFE_INTEGER,
      signal: new AbortController().signal,
      onToolCall: (e) => {
        events.push(e);
        if (e.record.progress && ++progressEvents === NOTIFICATIONS_BEFORE_RELEASE) fixture.release();
      },
    });
    const reply = JSON.parse(await proxy.handle('wait_with_progress', '[]', 'parsed'));
    expect(reply).toEqual({ ok: true, value: 'done' });
    const shown = events.filter((e) => e.phase === 'start' && e.record.progress).map((e) => describeEvent({ type: 'tool_call', phase: 'start', step: 1, record: e.record }));
    expect(shown[0]).toBe('  → wait_with_progress() 1 step 1');
    expect(events.at(-1)).toMatchObject({ phase: 'end', record: { ok: true } });

    const silent = JSON.parse(await proxy.handle('wait_silently', '[]', 'parsed'));
    expect(silent).toMatchObject({ ok: false, message: expect.stringMatching(/did not answer within/) });
  });
});

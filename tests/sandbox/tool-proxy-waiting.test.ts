// While the server of a call waits for the person (elicitation), the call's own clock and the run's stand still.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { CallOptions, ToolCaller, ToolResult } from '../../src/mcp/types.js';
import { ToolProxy } from '../../src/sandbox/tool-proxy.js';
import type { ToolCallRecord } from '../../src/sandbox/types.js';
import { binaryTool, numberResult } from './fake-callers.js';
import { runEndsIn } from '../helpers/run-ends-in.js';

const TOOL_TIMEOUT_MS = 1_000;

/**
 * A server that, on each call, asks the person at once and answers only after `answer()`; `stopAsking()` tells the
 * proxy the person has answered. `options` holds what the proxy passed.
 */
function askingCaller() {
  let release!: () => void;
  let resumeClocks: (() => void) | undefined;
  let options: CallOptions = {};
  const caller: ToolCaller = {
    callTool: (_server, _tool, _args, callOptions = {}) => {
      options = callOptions;
      resumeClocks = callOptions.onWaitingForUser?.();
      return new Promise<ToolResult>((resolve) => { release = () => resolve(numberResult(5)); });
    },
  };
  return { caller, stopAsking: () => resumeClocks?.(), answer: () => release(), options: () => options };
}

function proxyFor(caller: ToolCaller, deadlineInMs: number) {
  const pauses = { started: 0, ended: 0 };
  const ended: ToolCallRecord[] = [];
  const proxy = new ToolProxy({
    onToolCall: (e) => void (e.phase === 'end' && ended.push(e.record)),
    tools: [binaryTool('add')],
    caller,
    maxToolCalls: 5,
    toolTimeoutMs: TOOL_TIMEOUT_MS,
    remainingMs: runEndsIn(deadlineInMs),
    signal: new AbortController().signal,
    pauseDeadline: () => {
      pauses.started++;
      return () => { pauses.ended++; };
    },
  });
  const call = async () => JSON.parse(await proxy.handle('add', '[{"a":2,"b":3}]', 'parsed')) as { ok: boolean; value?: unknown; message?: string };
  return { call, pauses, ended };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('ToolProxy while the person is asked', () => {
  it("stops the call's own time limit and the run's deadline until the person has answered", async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const server = askingCaller();
    const { call, pauses } = proxyFor(server.caller, 60_000);
    const reply = call();
    let settled = false;
    void reply.then(() => { settled = true; });
    await vi.advanceTimersByTimeAsync(0);
    expect(server.options().onWaitingForUser).toBeTypeOf('function');
    expect(pauses).toEqual({ started: 1, ended: 0 });

    // The person takes ten times the call's time limit; the call is still waiting.
    await vi.advanceTimersByTimeAsync(10 * TOOL_TIMEOUT_MS);
    expect(settled).toBe(false);
    server.stopAsking();
    expect(pauses).toEqual({ started: 1, ended: 1 });
    server.answer();
    expect(await reply).toEqual({ ok: true, value: 5 });
  });

  it("shows the call's own time, less the time the person took to answer the server", async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const server = askingCaller();
    const { call, ended } = proxyFor(server.caller, 60_000);
    const reply = call();
    await vi.advanceTimersByTimeAsync(10 * TOOL_TIMEOUT_MS);
    server.stopAsking();
    // The server works 30 ms after the person's answer.
    await vi.advanceTimersByTimeAsync(30);
    server.answer();
    await reply;
    expect(ended).toEqual([expect.objectContaining({ tool: 'add', ok: true, ms: 30 })]);
  });

  it('lets the time limit run again once the person has answered: a server silent after that still times out', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const server = askingCaller();
    const { call } = proxyFor(server.caller, 60_000);
    const reply = call();
    await vi.advanceTimersByTimeAsync(10 * TOOL_TIMEOUT_MS);
    server.stopAsking();
    await vi.advanceTimersByTimeAsync(TOOL_TIMEOUT_MS);
    expect(await reply).toMatchObject({ ok: false, message: `Tool add failed: it did not answer within ${TOOL_TIMEOUT_MS} ms` });
  });
});

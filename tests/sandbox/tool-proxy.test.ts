import { describe, expect, it } from 'vitest';
import type { ApproveTool, ToolInfo } from '../../src/mcp/types.js';
import { MAX_TOOL_ARGS_CHARS, TOOL_CALL_TIMEOUT_MS } from '../../src/sandbox/limits.js';
import { MAX_REFUSALS_RECORDED, ToolProxy, type CallMode } from '../../src/sandbox/tool-proxy.js';
import type { ToolCallRecord } from '../../src/sandbox/types.js';
import { arithmeticCaller, binaryTool, crashingCaller, scriptedCaller, silentCaller, type RecordingCaller } from './fake-callers.js';
import { runEndsIn } from '../helpers/run-ends-in.js';

const TOOLS: ToolInfo[] = [binaryTool('add'), binaryTool('multiply')];

interface ProxyTestOptions {
  maxToolCalls?: number;
  tools?: ToolInfo[];
  signal?: AbortSignal;
  deadlineInMs?: number;
  toolTimeoutMs?: number;
}

function proxyFor(caller: RecordingCaller, options: ProxyTestOptions & { approve?: ApproveTool } = {}) {
  const events: Array<{ phase: string; record: ToolCallRecord }> = [];
  const proxy = new ToolProxy({
    tools: options.tools ?? TOOLS,
    caller,
    ...(options.approve ? { approve: options.approve } : {}),
    maxToolCalls: options.maxToolCalls ?? 5,
    ...(options.toolTimeoutMs ? { toolTimeoutMs: options.toolTimeoutMs } : {}),
    remainingMs: runEndsIn(options.deadlineInMs ?? 10_000),
    signal: options.signal ?? new AbortController().signal,
    onToolCall: (e) => events.push(e),
  });
  const call = async (name: string, args: unknown[], mode: CallMode = 'parsed') =>
    JSON.parse(await proxy.handle(name, JSON.stringify(args), mode)) as { ok: boolean; value?: unknown; kind?: string; message?: string };
  return { proxy, events, call };
}

describe('ToolProxy', () => {
  it('returns the parsed result to tools.x and the raw result to mcp.call_tool', async () => {
    const { call } = proxyFor(arithmeticCaller());
    expect(await call('add', [{ a: 2, b: 3 }])).toEqual({ ok: true, value: 5 });
    expect(await call('add', [{ a: 2, b: 3 }], 'raw')).toEqual({
      ok: true,
      value: { content: [{ type: 'text', text: '{"result":5}' }], structuredContent: { result: 5 } },
    });
  });

  it('parses text results: JSON with result, other JSON, plain text', async () => {
    const texts = ['{"result": [1, 2]}', '{"a": 1}', 'plain words'];
    const caller = scriptedCaller(() => ({ content: [{ type: 'text', text: texts.shift()! }] }));
    const { call } = proxyFor(caller);
    expect((await call('add', [{ a: 1, b: 1 }])).value).toEqual([1, 2]);
    expect((await call('add', [{ a: 1, b: 1 }])).value).toEqual({ a: 1 });
    expect((await call('add', [{ a: 1, b: 1 }])).value).toBe('plain words');
  });

  it('refuses call number max+1 without calling the server', async () => {
    const caller = arithmeticCaller();
    const { proxy, call } = proxyFor(caller, { maxToolCalls: 2 });
    await call('add', [{ a: 1, b: 1 }]);
    await call('add', [{ a: 1, b: 1 }]);
    const third = await call('add', [{ a: 1, b: 1 }]);
    expect(third).toMatchObject({ ok: false, kind: 'call_cap' });
    expect(third.message).toContain('at most 2 tool calls');
    expect(caller.received).toHaveLength(2);
    expect(proxy.capHit).toBe(true);
    expect(proxy.calls.map((c) => c.ok)).toEqual([true, true, false]);
  });

  it('asks for the run to stop once too many calls were refused', async () => {
    const { proxy, call } = proxyFor(arithmeticCaller(), { maxToolCalls: 0 });
    for (let i = 0; i < 10; i++) await call('add', [{ a: 1, b: 1 }]);
    expect(proxy.stopReason()).toBeNull();
    await call('add', [{ a: 1, b: 1 }]);
    expect(proxy.stopReason()).toBe('call_cap');
  });

  it('records a flood of refused calls as a bounded list plus one summary, and shows the summary once', async () => {
    const caller = arithmeticCaller();
    const { proxy, events, call } = proxyFor(caller, { maxToolCalls: 20 });
    const replies = await Promise.all(Array.from({ length: 5_000 }, (_, i) => call('add', [{ a: i, b: 1 }])));
    proxy.finishRecords();
    proxy.finishRecords();

    expect(replies.filter((r) => r.ok)).toHaveLength(20);
    expect(replies.filter((r) => r.kind === 'call_cap')).toHaveLength(4_980);
    expect(caller.received).toHaveLength(20);
    const further = 4_980 - MAX_REFUSALS_RECORDED;
    expect(proxy.calls).toHaveLength(20 + MAX_REFUSALS_RECORDED + 1);
    expect(proxy.calls.at(-1)).toMatchObject({ tool: 'add', ok: false, summarised: further, error: `${further.toLocaleString('en-US')} further calls rejected by the call cap` });
    expect(events).toHaveLength(2 * proxy.calls.length);
  });

  it('names both causes when the summarised refusals were not all over the cap', async () => {
    const { proxy, call } = proxyFor(arithmeticCaller(), { maxToolCalls: 0 });
    for (let i = 0; i < MAX_REFUSALS_RECORDED + 3; i++) await call('add', [{ a: 1, b: 1 }]);
    await call('ad', [{ a: 1, b: 1 }]);
    proxy.finishRecords();
    expect(proxy.calls.at(-1)).toMatchObject({ tool: 'add, ad', summarised: 4, error: '4 further calls refused (3 by the call cap, the rest for an unknown tool or invalid arguments)' });
  });

  it('adds no summary when every refused call was recorded', async () => {
    const { proxy, call } = proxyFor(arithmeticCaller(), { maxToolCalls: 0 });
    await call('add', [{ a: 1, b: 1 }]);
    proxy.finishRecords();
    expect(proxy.calls).toHaveLength(1);
    expect(proxy.calls[0]!.summarised).toBeUndefined();
  });

  it('checks arguments against the input schema before calling', async () => {
    const caller = arithmeticCaller();
    const { proxy, call } = proxyFor(caller);
    const reply = await call('add', [{ a: 1, b: 'two' }]);
    expect(reply).toMatchObject({ ok: false, kind: 'tool_error' });
    expect(reply.message).toBe(
      'tools.add was called with invalid arguments: arguments.b must be a number, got string "two". Call it as tools.add({a: number, b: number}).',
    );
    expect(caller.received).toHaveLength(0);
    expect(proxy.calls[0]).toMatchObject({ tool: 'add', ok: false, args: { a: 1, b: 'two' } });
  });

  it('unwraps a lone {input: {...}} when the schema has no input property', async () => {
    const caller = arithmeticCaller();
    const { call } = proxyFor(caller);
    expect(await call('add', [{ input: { a: 4, b: 5 } }])).toEqual({ ok: true, value: 9 });
    expect(caller.received[0]?.args).toEqual({ a: 4, b: 5 });
  });

  it('keeps {input: {...}} when the schema does have an input property', async () => {
    const wrapTool: ToolInfo = { server: 'fake', name: 'wrap', remoteName: 'wrap', description: '', inputSchema: { type: 'object', properties: { input: { type: 'object' } } } };
    const caller = scriptedCaller(() => ({ content: [{ type: 'text', text: 'ok' }] }));
    const { call } = proxyFor(caller, { tools: [wrapTool] });
    await call('wrap', [{ input: { a: 1 } }]);
    expect(caller.received[0]?.args).toEqual({ input: { a: 1 } });
  });

  it('maps positional arguments onto the schema properties in order', async () => {
    const caller = arithmeticCaller();
    const { call } = proxyFor(caller);
    expect(await call('multiply', [6, 7])).toEqual({ ok: true, value: 42 });
    expect(caller.received[0]?.args).toEqual({ a: 6, b: 7 });
  });

  it('answers an unknown tool with the closest names', async () => {
    const { call } = proxyFor(arithmeticCaller());
    const reply = await call('ad', [{ a: 1, b: 2 }]);
    expect(reply).toMatchObject({ ok: false, kind: 'tool_error' });
    expect(reply.message).toMatch(/^Unknown tool "ad"\. Closest: add, multiply\./);
  });

  it('rejects isError results with the server message for tools.x, and passes them through for mcp.call_tool', async () => {
    const caller = scriptedCaller(() => ({ content: [{ type: 'text', text: 'cannot divide by zero' }], isError: true }));
    const { proxy, call } = proxyFor(caller);
    expect(await call('add', [{ a: 1, b: 0 }])).toEqual({ ok: false, kind: 'tool_error', message: 'Tool add failed: cannot divide by zero' });
    expect(await call('add', [{ a: 1, b: 0 }], 'raw')).toMatchObject({ ok: true, value: { isError: true } });
    expect(proxy.calls.map((c) => [c.ok, c.error])).toEqual([[false, 'cannot divide by zero'], [false, 'cannot divide by zero']]);
  });

  it('turns a server that crashes mid-call into a tool error', async () => {
    const { proxy, call } = proxyFor(crashingCaller());
    const reply = await call('add', [{ a: 1, b: 2 }]);
    expect(reply).toMatchObject({ ok: false, kind: 'tool_error' });
    expect(reply.message).toContain('connection closed');
    expect(proxy.calls[0]).toMatchObject({ ok: false });
  });

  it('abandons a call that never answers when the run ends', async () => {
    const runEnded = new AbortController();
    const caller = silentCaller();
    const { proxy, call } = proxyFor(caller, { signal: runEnded.signal });
    const pending = call('add', [{ a: 1, b: 2 }]);
    expect(proxy.pendingTools()).toEqual(['add']);
    runEnded.abort();
    await caller.aborted;
    expect(await pending).toMatchObject({ ok: false, message: 'Tool add failed: the run ended before it answered' });
    expect(proxy.pendingTools()).toEqual([]);
  });

  it('gives the caller its own timeout when that ends before the run', async () => {
    const caller = arithmeticCaller();
    const { call } = proxyFor(caller, { deadlineInMs: 60_000 });
    await call('add', [{ a: 1, b: 2 }]);
    expect(caller.received[0]?.signal).toBeInstanceOf(AbortSignal);
    expect(caller.received[0]?.timeoutMs).toBe(TOOL_CALL_TIMEOUT_MS);
  });

  it('leaves a call near the deadline to the run deadline, not to a racing call timeout', async () => {
    const caller = arithmeticCaller();
    const runEnded = new AbortController();
    const { call } = proxyFor(caller, { deadlineInMs: 5_000, signal: runEnded.signal });
    await call('add', [{ a: 1, b: 2 }]);
    expect(caller.received[0]?.signal).toBe(runEnded.signal);
    expect(caller.received[0]?.timeoutMs).toBeGreaterThan(5_000);
  });

  it('gives up on a call that outlives its own timeout and tells the model so', async () => {
    const caller = silentCaller();
    const { proxy, call } = proxyFor(caller, { toolTimeoutMs: 100 });
    const reply = await call('add', [{ a: 1, b: 2 }]);
    expect(reply).toEqual({ ok: false, kind: 'tool_error', message: 'Tool add failed: it did not answer within 100 ms' });
    await caller.aborted;
    expect(proxy.calls[0]).toMatchObject({ ok: false, error: 'it did not answer within 100 ms' });
  });

  it('refuses arguments too large to send, on the host too', async () => {
    const caller = arithmeticCaller();
    const { proxy } = proxyFor(caller);
    const reply = JSON.parse(await proxy.handle('add', JSON.stringify([{ a: 1, b: 2, pad: 'x'.repeat(MAX_TOOL_ARGS_CHARS) }]), 'parsed')) as { message: string };
    expect(reply.message).toContain(`the limit is ${MAX_TOOL_ARGS_CHARS}`);
    expect(caller.received).toHaveLength(0);
  });

  it('refuses a result too large to hand into the isolate', async () => {
    const caller = scriptedCaller(() => ({ content: [{ type: 'text', text: 'x'.repeat(2_000_000) }] }));
    const { call } = proxyFor(caller);
    const reply = await call('add', [{ a: 1, b: 2 }]);
    expect(reply).toMatchObject({ ok: false, kind: 'tool_error' });
    expect(reply.message).toContain('returned too much');
  });

  it('reports start and end of each call, and survives a listener that throws', async () => {
    const caller = arithmeticCaller();
    const { proxy, events, call } = proxyFor(caller);
    await call('add', [{ a: 1, b: 2 }]);
    expect(events.map((e) => [e.phase, e.record.tool, e.record.ok])).toEqual([['start', 'add', false], ['end', 'add', true]]);
    expect(proxy.calls[0]).toMatchObject({ tool: 'add', args: { a: 1, b: 2 }, ok: true });

    const throwing = new ToolProxy({
      tools: TOOLS, caller, maxToolCalls: 5, remainingMs: runEndsIn(10_000), signal: new AbortController().signal,
      onToolCall: () => { throw new Error('display broke'); },
    });
    expect(JSON.parse(await throwing.handle('add', '[{"a":1,"b":1}]', 'parsed'))).toEqual({ ok: true, value: 2 });
  });

  it('routes by (server, name): a qualified name reaches the server that owns it', async () => {
    const shared: ToolInfo[] = [
      { ...binaryTool('a.add'), server: 'a', remoteName: 'add' },
      { ...binaryTool('b.add'), server: 'b', remoteName: 'add' },
    ];
    const caller = arithmeticCaller();
    const { proxy, call } = proxyFor(caller, { tools: shared });
    expect(await call('b.add', [{ a: 1, b: 2 }])).toEqual({ ok: true, value: 3 });
    expect(caller.received.map((r) => [r.server, r.name])).toEqual([['b', 'add']]);
    expect(proxy.calls[0]).toMatchObject({ tool: 'b.add', server: 'b', ok: true });
    expect((await call('add', [{ a: 1, b: 2 }])).message).toBe('Tool "add" is offered by several servers; call the one you mean: tools["a.add"] or tools["b.add"].');
  });

  it('asks the gate before a call, and a refusal reaches neither the server nor the cap', async () => {
    const inner = arithmeticCaller();
    const asked: string[] = [];
    const approve = async (tool: ToolInfo) => {
      asked.push(tool.name);
      return tool.name === 'add' ? { approved: true as const } : { approved: false as const, reason: 'the user declined it.' };
    };
    const { proxy, call } = proxyFor(inner, { maxToolCalls: 1, approve });
    expect(await call('multiply', [{ a: 2, b: 3 }])).toEqual({ ok: false, kind: 'tool_error', message: 'tools.multiply was not run: the user declined it.' });
    expect(await call('add', [{ a: 2, b: 3 }])).toEqual({ ok: true, value: 5 });
    expect(asked).toEqual(['multiply', 'add']);
    expect(inner.received.map((r) => r.name)).toEqual(['add']);
    expect(proxy.calls.map((c) => [c.tool, c.server, c.ok])).toEqual([['multiply', 'fake', false], ['add', 'fake', true]]);
  });

  it('refuses mcp.read_resource when the caller reads no resources', async () => {
    const { call } = proxyFor(arithmeticCaller());
    expect(await call('file:///x', [], 'resource')).toMatchObject({ ok: false, message: expect.stringContaining('No server in this run offers resources') });
  });
});

// The run's clock stands still while the user is asked to approve a call (host side, with a scripted worker and fake timers).
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ApprovalDecision, ApproveTool, ToolCaller } from '../../src/mcp/types.js';
import { createApprovalGate } from '../../src/policy/approval-gate.js';
import type { ApprovalPolicy } from '../../src/policy/approval-policy.js';
import { MAX_APPROVAL_PAUSE_MS, resolveLimits } from '../../src/sandbox/limits.js';
import type { HostMessage, WorkerMessage } from '../../src/sandbox/protocol.js';
import { runOnWorker } from '../../src/sandbox/run-on-worker.js';
import type { ToolCallRecord } from '../../src/sandbox/types.js';
import type { WorkerListener, WorkerProcess } from '../../src/sandbox/worker-process.js';
import { arithmeticCaller, binaryTool } from './fake-callers.js';

const TIMEOUT_MS = 1_000;

/** A worker that answers `run` with one call to `add` and records what the host sends. */
function scriptedWorker() {
  const sent: HostMessage[] = [];
  const waiting: Array<{ type: HostMessage['type']; resolve: () => void }> = [];
  let listener: WorkerListener | undefined;
  let killed = false;
  const worker = {
    runs: 0,
    alive: true,
    send(message: HostMessage) {
      sent.push(message);
      for (const w of waiting.filter((w) => w.type === message.type)) w.resolve();
      if (message.type === 'run') {
        queueMicrotask(() => listener?.message({ type: 'toolCall', runId: message.runId, callId: 0, name: 'add', argsJson: '[{"a":2,"b":3}]', mode: 'parsed' }));
      }
      return true;
    },
    listen(l: WorkerListener) {
      listener = l;
      return () => { listener = undefined; };
    },
    kill() { killed = true; },
  };
  const emit = (message: WorkerMessage) => listener?.message(message);
  /** Resolves once the host has sent a message of that type. */
  const sentOne = (type: HostMessage['type']) => new Promise<void>((resolve) => (sent.some((m) => m.type === type) ? resolve() : waiting.push({ type, resolve })));
  return { worker: worker as unknown as WorkerProcess, sent, emit, sentOne, killed: () => killed };
}

/** Runs a plan on the scripted worker with the `add` tool and TIMEOUT_MS as its limit; `ended` gets each finished call's record. */
function startRun(worker: WorkerProcess, caller: ToolCaller, approve?: ApproveTool, ended?: ToolCallRecord[]) {
  return runOnWorker({
    worker,
    runId: 1,
    code: 'async function solve() {}',
    options: {
      code: '',
      tools: [binaryTool('add')],
      caller,
      ...(approve ? { approve } : {}),
      ...(ended ? { onToolCall: (e: { phase: 'start' | 'end'; record: ToolCallRecord }) => void (e.phase === 'end' && ended.push(e.record)) } : {}),
    },
    limits: resolveLimits({ timeoutMs: TIMEOUT_MS }),
    startedAt: performance.now(),
  });
}

/** A gate whose answer is a person's, as createApprovalGate's past its quick answers: says so, then waits for `answer`. */
function personGate() {
  let answer!: (d: ApprovalDecision) => void;
  const approve: ApproveTool = (_tool, _args, { onWaitingForUser }) => {
    const answered = onWaitingForUser?.();
    return new Promise<ApprovalDecision>((resolve) => {
      answer = (d) => {
        answered?.();
        resolve(d);
      };
    });
  };
  return { approve, answer: (d: ApprovalDecision) => answer(d) };
}

/** The approval policy of a profile that lists no tools; `fake.add` (unannotated, not ours) is asked about unless allowed. */
const POLICY: ApprovalPolicy = { require: [], allow: [], allowAll: false, ownServers: new Set(['math']) };

afterEach(() => {
  vi.useRealTimers();
});

describe('runOnWorker with an approval gate', () => {
  it('stops the deadline while the user is asked, here and in the worker, and moves it by the wait', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const { approve, answer } = personGate();
    const w = scriptedWorker();
    const output = startRun(w.worker, arithmeticCaller(), approve);
    await vi.advanceTimersByTimeAsync(0);
    expect(w.sent.map((m) => m.type)).toEqual(['run', 'pauseDeadline']);

    // The user takes ten times the plan's time limit; the run is neither ended nor killed.
    await vi.advanceTimersByTimeAsync(10 * TIMEOUT_MS);
    expect(w.killed()).toBe(false);
    answer({ approved: true });
    await vi.advanceTimersByTimeAsync(0);
    expect(w.sent.map((m) => m.type)).toEqual(['run', 'pauseDeadline', 'resumeDeadline', 'toolReply']);
    expect(JSON.parse((w.sent[3] as { reply: string }).reply)).toEqual({ ok: true, value: 5 });

    // What was left of the deadline still counts: past it (plus the kill grace) the worker is killed.
    await vi.advanceTimersByTimeAsync(TIMEOUT_MS / 2);
    expect(w.killed()).toBe(false);
    await vi.advanceTimersByTimeAsync(TIMEOUT_MS + 1_000);
    expect(w.killed()).toBe(true);
    expect((await output).result).toMatchObject({ ok: false, error: { kind: 'timeout' } });
  });

  it('shows a call\'s own time, not the time the person took to approve it, and its arguments as the code wrote them', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const { approve, answer } = personGate();
    const ended: ToolCallRecord[] = [];
    const w = scriptedWorker();
    const output = startRun(w.worker, arithmeticCaller(), approve, ended);
    await vi.advanceTimersByTimeAsync(0);
    // The person takes ten times the plan's time limit to say yes; the tool itself answers at once.
    await vi.advanceTimersByTimeAsync(10 * TIMEOUT_MS);
    answer({ approved: true });
    await vi.advanceTimersByTimeAsync(0);
    expect(ended).toEqual([expect.objectContaining({ tool: 'add', ok: true, ms: 0, passed: '{"a":2,"b":3}' })]);
    await vi.advanceTimersByTimeAsync(2 * TIMEOUT_MS + 1_000);
    await output;
  });

  it('lets the clock run again after MAX_APPROVAL_PAUSE_MS even without an answer', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const w = scriptedWorker();
    const output = startRun(w.worker, arithmeticCaller(), personGate().approve);
    await vi.advanceTimersByTimeAsync(MAX_APPROVAL_PAUSE_MS);
    expect(w.sent.map((m) => m.type)).toEqual(['run', 'pauseDeadline', 'resumeDeadline']);
    await vi.advanceTimersByTimeAsync(TIMEOUT_MS + 1_000);
    expect(w.killed()).toBe(true);
    expect((await output).result).toMatchObject({ ok: false, error: { kind: 'timeout' } });
  });

  it('stops the deadline while the approval gate asks at the terminal, and starts it again with the answer', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    let type!: (line: string) => void;
    const gate = createApprovalGate({ policy: POLICY, ask: () => new Promise<string | null>((resolve) => { type = resolve; }) });
    const w = scriptedWorker();
    const output = startRun(w.worker, arithmeticCaller(), gate);
    await vi.advanceTimersByTimeAsync(0);
    expect(w.sent.map((m) => m.type)).toEqual(['run', 'pauseDeadline']);
    // The person takes ten times the plan's time limit to type "y"; the run is neither ended nor killed.
    await vi.advanceTimersByTimeAsync(10 * TIMEOUT_MS);
    expect(w.killed()).toBe(false);
    type('y');
    await vi.advanceTimersByTimeAsync(0);
    expect(w.sent.map((m) => m.type)).toEqual(['run', 'pauseDeadline', 'resumeDeadline', 'toolReply']);
    w.emit({ type: 'done', runId: 1, outcome: { ok: true, value: '5' }, healthy: true, rssMb: 50 });
    expect((await output).result).toMatchObject({ ok: true, value: '5' });
  });

  it('sends the worker no pause when the approval answers at once (a tool the profile allows)', async () => {
    const gate = createApprovalGate({ policy: { ...POLICY, allow: ['fake.add'] } });
    const w = scriptedWorker();
    const output = startRun(w.worker, arithmeticCaller(), gate);
    await w.sentOne('toolReply');
    expect(w.sent.map((m) => m.type)).toEqual(['run', 'toolReply']);
    expect(JSON.parse((w.sent[1] as { reply: string }).reply)).toEqual({ ok: true, value: 5 });
    w.emit({ type: 'done', runId: 1, outcome: { ok: true, value: '5' }, healthy: true, rssMb: 50 });
    expect((await output).result).toMatchObject({ ok: true, value: '5' });
  });
});

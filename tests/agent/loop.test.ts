import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SandboxResult } from '../../src/sandbox/types.js';
import { MAX_NEWEST_RESULT_CHARS } from '../../src/agent/decision.js';
import type { AgentOptions } from '../../src/agent/types.js';
import { LlmRequestError, SandboxUnavailableError } from '../../src/errors.js';
import type { ScriptedTurn } from '../helpers/scripted-llm.js';
import { SessionMemory } from '../../src/memory/session-memory.js';
import { call, catalogueSection, errorResult, okResult, perceptionJson, plan, setupRun, TOOLS, type SandboxTurn } from './fakes.js';

let baseDir: string;

beforeEach(async () => {
  baseDir = await mkdtemp(join(tmpdir(), 'cortex-loop-'));
});

afterEach(async () => {
  await rm(baseDir, { recursive: true, force: true });
});

const setup = (turns: ScriptedTurn[], sandboxTurns: SandboxTurn[], overrides: Partial<AgentOptions> = {}) => setupRun(baseDir, turns, sandboxTurns, overrides);

async function traceLines(path: string): Promise<Array<Record<string, unknown>>> {
  return (await readFile(path, 'utf8')).trim().split('\n').map((line) => JSON.parse(line));
}

describe('runAgent', () => {
  it('answers in one step when solve() returns FINAL_ANSWER', async () => {
    const code = plan('return "FINAL_ANSWER: " + (await tools.add({ a: 2, b: 3 }));');
    const { llm, sandbox, caller, memory, events, run } = setup([perceptionJson(['math']), code], [okResult('FINAL_ANSWER: 5', [call('add', { a: 2, b: 3 })])]);
    const result = await run();

    expect(result).toMatchObject({ status: 'answered', answer: '5', session_id: memory.id, reason: null });
    expect(result.steps).toEqual([
      {
        step: 1,
        lifeline: 2,
        strategy: 'conservative',
        servers: ['math'],
        // The fake sandbox reports no normalised code; the raw reply is kept apart.
        code: '',
        reply: code,
        outcome: 'final_answer',
        error: null,
        diagnosis: null,
        tool_calls: [{ name: 'add', args: { a: 2, b: 3 }, ok: true, ms: 3 }],
      },
    ]);
    expect(result.usage).toEqual({ prompt_tokens: 20, completion_tokens: 8 });
    expect(result.timings.total_ms).toBeGreaterThanOrEqual(result.timings.sandbox_ms);
    expect(llm.requests).toHaveLength(2);
    // The sandbox gets the selected servers' tools, the caller and the limits.
    expect(sandbox.runs[0]!.tools.map((t) => t.name)).toEqual(['add', 'multiply']);
    expect(sandbox.runs[0]!.caller).toBe(caller);
    expect(sandbox.runs[0]!.limits).toEqual({ maxToolCalls: 4 });
    expect(events.map((e) => (e.type === 'tool_call' ? `tool_call:${e.phase}` : e.type))).toEqual([
      'perceiving',
      'llm_start',
      'llm_end',
      'perceived',
      'planning',
      'llm_start',
      'llm_end',
      'running',
      'tool_call:start',
      'tool_call:end',
      'outcome',
    ]);
    expect(events[4]).toMatchObject({ type: 'planning', step: 1, maxSteps: 3, lifelinesLeft: 2 });
    // Each request is framed for the displays: which stage, which model, and its figures once answered.
    expect(events[1]).toMatchObject({ type: 'llm_start', stage: 'perception', step: 1 });
    expect(events[6]).toMatchObject({ type: 'llm_end', stage: 'decision', step: 1, completionTokens: 4 });
  });

  it.each([
    ['conservative', 'STRATEGY: CONSERVATIVE.'],
    ['exploratory-parallel', 'STRATEGY: EXPLORATORY, PARALLEL.'],
    ['exploratory-sequential', 'STRATEGY: EXPLORATORY, SEQUENTIAL.'],
  ] as const)('plans with the %s prompt when that strategy is chosen', async (strategy, line) => {
    const { llm, run } = setup([perceptionJson(['math']), plan('x')], [okResult('FINAL_ANSWER: 5')], { strategy });
    const result = await run();
    expect(llm.requests[1]!.prompt).toContain(line);
    expect(result.steps[0]!.strategy).toBe(strategy);
  });

  it('writes the run to session memory and the trace', async () => {
    const { memory, run } = setup([perceptionJson(['math']), plan('return 1;')], [okResult('FINAL_ANSWER: 5', [call('add', { a: 2, b: 3 })])]);
    await run();

    const items = JSON.parse(await readFile(memory.path, 'utf8'));
    expect(items.map((i: { type: string }) => i.type)).toEqual(['run_metadata', 'tool_call', 'tool_output', 'final_answer']);
    expect(items[0]).toMatchObject({ text: 'Add 2 and 3' });
    expect(items[1]).toMatchObject({ tool_name: 'add', tool_args: { a: 2, b: 3 }, success: true });
    expect(items[3]).toMatchObject({ final_answer: '5' });
    expect(memory.findRecentSuccesses()).toEqual(['add']);

    const lines = await traceLines(memory.tracePath);
    expect(lines.map((l) => l.type)).toEqual(['run_start', 'llm_call', 'perception', 'llm_call', 'plan', 'tool_call', 'answer']);
    expect(lines[1]).toMatchObject({ stage: 'perception', model: 'scripted', prompt_tokens: 10, completion_tokens: 4, ok: true });
    expect(lines[3]).toMatchObject({ stage: 'decision', prompt_tokens: 10, completion_tokens: 4 });
    expect(typeof lines[3]!.latency_ms).toBe('number');
    expect(lines[4]).toMatchObject({ step: 1, lifeline: 2, strategy: 'conservative', tools: ['add', 'multiply'] });
    expect(lines[5]).toMatchObject({ name: 'add', args: { a: 2, b: 3 }, ok: true, ms: 3 });
    expect(lines[6]).toMatchObject({ answer: '5' });
  });

  it('starts the next step with the original task and the FURTHER_PROCESSING_REQUIRED result, perceiving once', async () => {
    const s = setup(
      [perceptionJson(['math']), plan('return "step one";'), plan('return "step two";')],
      [okResult('FURTHER_PROCESSING_REQUIRED: [73, 78, 68, 73, 65]'), okResult('FINAL_ANSWER: 7.59e33')],
      { query: 'Sum the exponentials of the ASCII codes of INDIA' },
    );
    const result = await s.run();
    expect(result).toMatchObject({ status: 'answered', answer: '7.59e33' });
    expect(result.steps.map((r) => [r.step, r.outcome, r.servers])).toEqual([
      [1, 'further_processing', ['math']],
      [2, 'final_answer', ['math']],
    ]);
    expect(s.llm.requests).toHaveLength(3);
    const secondDecision = s.llm.requests[2]!.prompt;
    expect(secondDecision).toContain('Sum the exponentials of the ASCII codes of INDIA');
    expect(secondDecision).toMatch(/===== STEP 1 RESULT [0-9a-f]{16} =====\n\[73, 78, 68, 73, 65\]/);
    expect(secondDecision).toContain('This is step 2 of 3');
    expect(s.llm.requests[1]!.prompt).not.toContain('[73, 78, 68, 73, 65]');
    expect(s.events.filter((e) => e.type === 'perceiving')).toHaveLength(1);
  });

  it('carries step 1\'s result to step 3, after step 2 found something else', async () => {
    const s = setup(
      [perceptionJson(['math']), plan('one'), plan('two'), plan('three')],
      [okResult('FURTHER_PROCESSING_REQUIRED: first-finding'), okResult('FURTHER_PROCESSING_REQUIRED: second-finding'), okResult('FINAL_ANSWER: both')],
    );
    const result = await s.run();
    expect(result.status).toBe('answered');
    const third = s.llm.requests[3]!.prompt;
    expect(third).toContain('first-finding');
    expect(third).toContain('second-finding');
    expect(third).toContain('the LAST step');
  });

  it('feeds back FURTHER_PROCESSING_REQUIRED on the last step while a lifeline is left', async () => {
    const s = setup(
      [perceptionJson(['math']), plan('one'), plan('two')],
      [okResult('FURTHER_PROCESSING_REQUIRED: 42 things'), okResult('FINAL_ANSWER: 42')],
      { maxSteps: 1 },
    );
    const result = await s.run();
    expect(result).toMatchObject({ status: 'answered', answer: '42' });
    expect(result.steps.map((r) => r.outcome)).toEqual(['invalid_plan', 'final_answer']);
    expect(s.llm.requests[2]!.prompt).toContain('solve() returned FURTHER_PROCESSING_REQUIRED on the last step, so no step can use it. Its result was:\n42 things');
  });

  it('bounds a carried result and says it was cut', async () => {
    const long = 'x'.repeat(MAX_NEWEST_RESULT_CHARS + 500);
    const { llm, run } = setup([perceptionJson(['math']), plan('a'), plan('b')], [okResult(`FURTHER_PROCESSING_REQUIRED: ${long}`), okResult('FINAL_ANSWER: done')]);
    await run();
    const prompt = llm.requests[2]!.prompt;
    expect(prompt).toContain(`[500 of ${long.length.toLocaleString('en-US')} characters left out]`);
    expect(prompt).not.toContain(long);
  });

  it('carries a 300 KB JSON result to the next step cut to its shape: its keys and counts', async () => {
    const orders = Array.from({ length: 3_000 }, (_, i) => ({ id: i, customer: `customer-${i}`, note: 'n'.repeat(60) }));
    const big = JSON.stringify({ source: 'shop', total: 3_000, orders, pages: { next: null, size: 3_000 } });
    expect(big.length).toBeGreaterThan(250_000);
    const { llm, run } = setup([perceptionJson(['math']), plan('a'), plan('b')], [okResult(`FURTHER_PROCESSING_REQUIRED: ${big}`), okResult('FINAL_ANSWER: done')]);
    await run();
    const prompt = llm.requests[2]!.prompt;
    const carried = prompt.slice(prompt.indexOf('RESULT'), prompt.lastIndexOf('END OF DATA'));
    expect(carried.length).toBeLessThanOrEqual(MAX_NEWEST_RESULT_CHARS + 100);
    for (const key of ['"source"', '"total"', '"orders"', '"pages"', '"next"', '"size"', '"customer"']) expect(carried).toContain(key);
    expect(carried).toMatch(/more \(3,000 items in all\)/);
  });

  it('retries after a sandbox error with the error and the failing code in the prompt, perceiving once', async () => {
    const broken = plan('return tools.add({ x: 1 }); // BROKEN');
    const { llm, sandbox, run } = setup(
      [perceptionJson(['math']), broken, plan('return "fixed";')],
      [errorResult('runtime', 'add: argument "a" is required', [call('add', { x: 1 }, false)], ['trying add']), okResult('FINAL_ANSWER: 5')],
    );
    const result = await run();
    expect(result.status).toBe('answered');
    expect(result.steps.map((s) => [s.lifeline, s.outcome, s.error])).toEqual([
      [2, 'sandbox_error', 'runtime: add: argument "a" is required'],
      [1, 'final_answer', null],
    ]);
    expect(llm.requests).toHaveLength(3);
    const retryPrompt = llm.requests[2]!.prompt;
    expect(retryPrompt).toContain('runtime: add: argument "a" is required');
    expect(retryPrompt).toContain('return tools.add({ x: 1 }); // BROKEN');
    expect(retryPrompt).toContain('trying add');
    expect(llm.requests[1]!.prompt).not.toContain('BROKEN');
    expect(sandbox.runs).toHaveLength(2);
  });

  it('ends the question with how to fix it when the sandbox cannot start, spending no retry', async () => {
    const reason = 'isolated-vm could not be loaded on Node 22.23.5 (…). Reinstall with the Node you run Cortex-R with: npm run setup (docs/node-versions.md).';
    const unavailable: SandboxResult = { ok: false, error: { kind: 'unavailable', message: reason }, logs: [], calls: [], ms: 5 };
    const { llm, sandbox, run } = setup([perceptionJson(['math']), plan('return "5";'), plan('return "5";')], [unavailable, okResult('FINAL_ANSWER: 5')]);
    const error = await run().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SandboxUnavailableError);
    expect((error as Error).message).toBe(reason);
    expect(sandbox.runs).toHaveLength(1);
    expect(llm.requests).toHaveLength(2);
  });

  it('takes a value with neither prefix as the answer', async () => {
    const { llm, run } = setup([perceptionJson(['math']), plan('return 5;')], [okResult('5')]);
    const result = await run();
    expect(result).toMatchObject({ status: 'answered', answer: '5' });
    expect(llm.requests).toHaveLength(2);
  });

  it.each([
    ['undefined', 'FURTHER_PROCESSING_REQUIRED: undefined'],
    ['[object Object]', 'FINAL_ANSWER: [object Object]'],
    ['NaN', 'NaN'],
    ['null', 'null'],
  ])('feeds %s back to the model with the code that produced it instead of handing it on', async (shown, value) => {
    const { llm, run } = setup([perceptionJson(['math']), plan('return broken; // PRODUCER'), plan('return "FINAL_ANSWER: 5";')], [okResult(value), okResult('FINAL_ANSWER: 5')]);
    const result = await run();
    expect(result.steps[0]).toMatchObject({ outcome: 'invalid_plan', lifeline: 2 });
    expect(result.steps[0]!.error).toContain('which is not a result');
    const retry = llm.requests[2]!.prompt;
    expect(retry).toContain(shown);
    expect(retry).toContain('return broken; // PRODUCER');
    expect(result).toMatchObject({ status: 'answered', answer: '5' });
  });

  it('gives up when a step runs out of lifelines, saying what was tried', async () => {
    const { llm, memory, events, run } = setup(
      [perceptionJson(['math']), plan('one'), plan('two')],
      [errorResult('timeout', 'solve() ran past 30000 ms', [call('multiply', { a: 1, b: 2 })]), okResult('undefined')],
      { maxLifelinesPerStep: 1 },
    );
    const result = await run();
    expect(result).toMatchObject({ status: 'gave_up', answer: null });
    expect(result.steps.map((s) => s.lifeline)).toEqual([1, 0]);
    expect(result.reason).toMatch(/step 1 failed on all 2 tries, with no retries left/);
    // The summary is for a person: plain diagnoses, not the feedback written for the model.
    expect(result.reason).toMatch(/step 1, try 1 \(used multiply\): The code did not finish in time/);
    expect(result.reason).toMatch(/step 1, try 2 \(no tool calls\): The code returned nothing \(undefined\)/);
    expect(result.reason).toMatch(/What went wrong last: The code returned nothing \(undefined\)/);
    expect(result.reason).toMatch(/To try: .*larger model/);
    expect(result.reason).not.toMatch(/lifeline|Then send the corrected solve|FINAL_ANSWER/);
    expect(llm.remaining).toBe(0);
    expect(events.filter((e) => e.type === 'planning').map((e) => (e as { lifelinesLeft: number }).lifelinesLeft)).toEqual([1, 0]);
    const lines = await traceLines(memory.tracePath);
    expect(lines.map((l) => l.type)).toContain('sandbox_error');
    expect(lines.at(-1)).toMatchObject({ type: 'gave_up' });
  });

  it('gives up after max_steps of FURTHER_PROCESSING_REQUIRED with no lifeline left, quoting the last result', async () => {
    const { run } = setup(
      [perceptionJson(['math']), plan('a'), plan('b')],
      [okResult('FURTHER_PROCESSING_REQUIRED: partial 1'), okResult('FURTHER_PROCESSING_REQUIRED: partial 2')],
      { maxSteps: 2, maxLifelinesPerStep: 0 },
    );
    const result = await run();
    expect(result.status).toBe('gave_up');
    expect(result.reason).toMatch(/within 2 steps\. The last step's result was: partial 2/);
    expect(result.reason).toMatch(/To try: split the question into smaller ones, allow more steps \(strategy\.max_steps in the profile\)/);
  });

  it('puts recently successful tools first in a retry prompt, and the code may call exactly the tools shown', async () => {
    const memory = SessionMemory.create({ baseDir });
    await memory.add({ type: 'tool_call', text: 'multiply', tool_name: 'multiply', success: true });
    const { llm, sandbox, events, run } = setup(
      [perceptionJson(['documents']), plan('first'), plan('second')],
      [errorResult('runtime', 'search failed'), okResult('FINAL_ANSWER: ok')],
      { memory, memoryFallbackEnabled: true },
    );
    await run();
    expect(sandbox.runs.map((r) => r.tools.map((t) => t.name))).toEqual([['search_stored_documents'], ['multiply', 'search_stored_documents']]);
    expect(catalogueSection(llm.requests[1]!.prompt)).not.toContain('tools.multiply(');
    expect(catalogueSection(llm.requests[2]!.prompt)).toMatch(/tools\.multiply\([\s\S]*tools\.search_stored_documents\(/);
    expect(events.filter((e) => e.type === 'planning').map((e) => (e as { narrowed: boolean }).narrowed)).toEqual([false, true]);
  });

  it('keeps the perception selection on a retry when the memory fallback is disabled', async () => {
    const memory = SessionMemory.create({ baseDir });
    await memory.add({ type: 'tool_call', text: 'multiply', tool_name: 'multiply', success: true });
    const { sandbox, run } = setup(
      [perceptionJson(['documents']), plan('first'), plan('second')],
      [errorResult('runtime', 'search failed'), okResult('FINAL_ANSWER: ok')],
      { memory, memoryFallbackEnabled: false },
    );
    await run();
    expect(sandbox.runs.map((r) => r.tools.map((t) => t.name))).toEqual([['search_stored_documents'], ['search_stored_documents']]);
  });

  it('offers every tool when perception fails', async () => {
    const { sandbox, run } = setup(['not json at all', plan('x')], [okResult('FINAL_ANSWER: 1')]);
    const result = await run();
    expect(result.steps[0]!.servers).toEqual(['math', 'documents', 'websearch']);
    expect(sandbox.runs[0]!.tools).toHaveLength(TOOLS.length);
  });

  it('tells the model about earlier questions of the session', async () => {
    const memory = SessionMemory.create({ baseDir });
    const first = setup([perceptionJson(['math']), plan('a')], [okResult('FINAL_ANSWER: 5')], { memory });
    await first.run();
    const second = setup([perceptionJson(['math']), plan('b')], [okResult('FINAL_ANSWER: 10')], { memory, query: 'Now double it' });
    await second.run();
    expect(second.llm.requests[1]!.prompt).toContain('Q: Add 2 and 3\nA: 5');
  });

  it('ends cleanly with status cancelled when the signal aborts during solve()', async () => {
    const controller = new AbortController();
    const { memory, run } = setup([perceptionJson(['math']), plan('slow')], [
      (options) => {
        // As the real sandbox does: the run takes the question's signal and ends when it aborts.
        const ended = new Promise<SandboxResult>((resolve) =>
          options.signal!.addEventListener('abort', () => resolve({ ok: false, error: { kind: 'cancelled', message: 'cancelled' }, logs: [], calls: [], ms: 0 })),
        );
        controller.abort();
        return ended;
      },
    ], { signal: controller.signal });
    const result = await run();
    expect(result).toMatchObject({ status: 'cancelled', answer: null, steps: [] });
    expect(result.reason).toMatch(/Cancelled during step 1/);
    expect((await traceLines(memory.tracePath)).at(-1)).toMatchObject({ type: 'cancelled' });
  });

  it('passes the question\'s signal to the sandbox and ends only with the plan, keeping the calls it made', async () => {
    const controller = new AbortController();
    const order: string[] = [];
    const call = { tool: 'add', server: 'math', args: { a: 1, b: 2 }, ok: true, ms: 1 };
    const { memory, run } = setup([perceptionJson(['math']), plan('slow')], [
      (options) =>
        new Promise<SandboxResult>((resolve) => {
          options.signal!.addEventListener('abort', () => {
            order.push('sandbox saw the abort');
            // The plan takes a turn of the event loop to stop, as a killed worker does.
            setImmediate(() => {
              order.push('plan ended');
              resolve({ ok: false, error: { kind: 'cancelled', message: 'cancelled' }, logs: [], calls: [call], ms: 0 });
            });
          });
          controller.abort();
        }),
    ], { signal: controller.signal });
    const result = await run();
    order.push(`run ${result.status}`);
    expect(order).toEqual(['sandbox saw the abort', 'plan ended', 'run cancelled']);
    expect(memory.items.filter((i) => i.type === 'tool_call').map((i) => i.tool_name)).toEqual(['add']);
  });

  it('does not start when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const { llm, run } = setup([], [], { signal: controller.signal });
    expect((await run()).status).toBe('cancelled');
    expect(llm.requests).toHaveLength(0);
  });

  it('passes an LLM failure in the decision on, after tracing it', async () => {
    const { memory, run } = setup([perceptionJson(['math']), () => Promise.reject(new LlmRequestError('ollama', 'HTTP 500', 500))], []);
    await expect(run()).rejects.toBeInstanceOf(LlmRequestError);
    const lines = await traceLines(memory.tracePath);
    expect(lines.at(-2)).toMatchObject({ type: 'llm_call', stage: 'decision', ok: false });
    expect(lines.at(-1)).toMatchObject({ type: 'error', code: 'llm_request' });
  });

  it('refuses limits outside their bounds', async () => {
    await expect(setup([], [], { maxSteps: 0 }).run()).rejects.toThrow(/max_steps/);
    await expect(setup([], [], { maxLifelinesPerStep: Infinity }).run()).rejects.toThrow(/max_lifelines_per_step/);
  });
});

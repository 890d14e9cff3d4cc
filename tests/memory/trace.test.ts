import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SessionMemory } from '../../src/memory/session-memory.js';
import { MAX_TRACE_FIELD_CHARS, Trace } from '../../src/memory/trace.js';

let baseDir: string;

beforeEach(async () => {
  baseDir = await mkdtemp(join(tmpdir(), 'cortex-trace-'));
});

afterEach(async () => {
  await rm(baseDir, { recursive: true, force: true });
});

async function lines(path: string): Promise<Array<Record<string, unknown>>> {
  return (await readFile(path, 'utf8'))
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
}

describe('Trace', () => {
  it('appends one JSON line per event beside the session file, each with a timestamp', async () => {
    const memory = SessionMemory.create({ baseDir });
    const trace = new Trace(memory.tracePath);
    await trace.record({
      type: 'llm_call',
      run_id: 'r',
      stage: 'decision',
      step: 1,
      model: 'm',
      prompt_tokens: 120,
      completion_tokens: 30,
      latency_ms: 5,
      ok: true,
    });
    await trace.record({ type: 'tool_call', run_id: 'r', step: 1, lifeline: 3, name: 'add', args: { a: 1, b: 2 }, ms: 4, ok: true });
    await trace.record({ type: 'answer', run_id: 'r', step: 1, answer: '3' });
    const read = await lines(memory.tracePath);
    expect(read.map((l) => l.type)).toEqual(['llm_call', 'tool_call', 'answer']);
    expect(read[0]).toMatchObject({ model: 'm', prompt_tokens: 120, completion_tokens: 30, latency_ms: 5 });
    expect(read[1]).toMatchObject({ name: 'add', args: { a: 1, b: 2 }, ms: 4, ok: true });
    for (const line of read) expect(Date.parse(line.ts as string)).not.toBeNaN();
  });

  it('keeps lines in call order when records are not awaited one by one', async () => {
    const trace = new Trace(join(baseDir, 'nested', 't.trace.jsonl'));
    await Promise.all(Array.from({ length: 25 }, (_, i) => trace.record({ type: 'answer', run_id: 'r', step: i, answer: String(i) })));
    expect((await lines(trace.path)).map((l) => l.step)).toEqual(Array.from({ length: 25 }, (_, i) => i));
  });

  it('bounds huge fields so one plan cannot bloat the trace', async () => {
    const trace = new Trace(join(baseDir, 't.trace.jsonl'));
    await trace.record({ type: 'plan', run_id: 'r', step: 1, lifeline: 0, strategy: 'conservative', tools: [], narrowed: false, code: 'x'.repeat(MAX_TRACE_FIELD_CHARS * 3) });
    await trace.record({ type: 'tool_call', run_id: 'r', step: 1, lifeline: 0, name: 'echo', args: { s: 'y'.repeat(100_000) }, ms: 1, ok: true });
    const [plan, call] = await lines(trace.path);
    expect((plan!.code as string).length).toBeLessThan(MAX_TRACE_FIELD_CHARS + 100);
    expect(call!.args).toMatchObject({ truncated: true });
  });
});

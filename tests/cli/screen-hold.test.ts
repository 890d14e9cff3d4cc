// While the person is asked something, progress draws nothing over the question: the spinner stands still and lines
// that come meanwhile wait until the answer is in (on a terminal; fake timers drive the spinner).
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AgentEvent } from '../../src/agent/types.js';
import { createOutput } from '../../src/cli/output.js';
import { createProgress, SPINNER_INTERVAL_MS } from '../../src/cli/progress.js';
import { holdProgress } from '../../src/cli/screen-hold.js';

let written: string[] = [];
const realWrite = process.stderr.write;
const realTty = process.stderr.isTTY;

beforeEach(() => {
  written = [];
  vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'performance'] });
  process.stderr.isTTY = true;
  process.stderr.write = ((chunk: string) => written.push(String(chunk)) > 0) as typeof process.stderr.write;
});
afterEach(() => {
  process.stderr.write = realWrite;
  process.stderr.isTTY = realTty;
  vi.useRealTimers();
});

const llmStart: AgentEvent = { type: 'llm_start', stage: 'decision', step: 1, model: 'm', promptTokens: 10 };

describe('progress while the person is asked', () => {
  it('keeps the spinner off the screen until the answer, then draws again', () => {
    const progress = createProgress(createOutput({}, { NO_COLOR: '1' }));
    progress.onEvent(llmStart);
    vi.advanceTimersByTime(3 * SPINNER_INTERVAL_MS);
    expect(written.length).toBeGreaterThan(0);
    const release = holdProgress();
    const before = written.length;
    vi.advanceTimersByTime(50 * SPINNER_INTERVAL_MS);
    expect(written.slice(before)).toEqual([]);
    release();
    vi.advanceTimersByTime(2 * SPINNER_INTERVAL_MS);
    expect(written.slice(before).join('')).toMatch(/writing the plan/);
    progress.done();
  });

  it('writes a line that came meanwhile (a tool call that ended) after the answer, not over the question', () => {
    const progress = createProgress(createOutput({}, { NO_COLOR: '1' }));
    const release = holdProgress();
    progress.onEvent({ type: 'tool_call', phase: 'end', step: 1, record: { tool: 'add', server: 'math', args: { a: 1 }, ok: true, ms: 3 } });
    expect(written).toEqual([]);
    release();
    expect(written.join('')).toContain('add({"a":1})');
    progress.done();
  });
});

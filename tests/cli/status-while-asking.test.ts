// Nothing draws over a question to the person: while Cortex-R waits for an answer the status line is cleared and still.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createOutput } from '../../src/cli/output.js';
import { createProgress, SPINNER_INTERVAL_MS } from '../../src/cli/progress.js';
import { whileAsking } from '../../src/cli/status-line.js';

/** What was written to stderr, recorded by a hand-written stand-in for its write(). */
let written: string[] = [];
const realWrite = process.stderr.write.bind(process.stderr);
const realIsTty = process.stderr.isTTY;
beforeEach(() => {
  written = [];
  vi.useFakeTimers();
  process.stderr.isTTY = true;
  process.stderr.write = ((chunk: string | Uint8Array) => {
    written.push(String(chunk));
    return true;
  }) as typeof process.stderr.write;
});
afterEach(() => {
  process.stderr.write = realWrite;
  process.stderr.isTTY = realIsTty;
  vi.useRealTimers();
});

/** A terminal run with the spinner turning while the model writes its plan. */
function turningSpinner(): ReturnType<typeof createProgress> {
  const progress = createProgress(createOutput({}, { NO_COLOR: '1' }));
  progress.onEvent({ type: 'llm_start', stage: 'decision', step: 1, model: 'qwen2.5-coder:7b', promptTokens: 10 });
  return progress;
}

describe('the status line while the person is asked', () => {
  it('is cleared before the question and draws nothing until the answer is in, then turns again', async () => {
    const progress = turningSpinner();
    vi.advanceTimersByTime(SPINNER_INTERVAL_MS * 3);
    expect(written.join('')).toMatch(/writing the plan/);
    let release: (answer: string) => void = () => undefined;
    const answered = whileAsking(() => new Promise<string>((resolve) => (release = resolve)));
    // The line shown is wiped first, so the question starts on a clean line.
    expect(written.at(-1)).toBe('\r\x1b[K');
    const asked = written.length;
    vi.advanceTimersByTime(SPINNER_INTERVAL_MS * 50);
    expect(written.slice(asked)).toEqual([]);
    release('n');
    expect(await answered).toBe('n');
    vi.advanceTimersByTime(SPINNER_INTERVAL_MS * 2);
    expect(written.slice(asked).join('')).toMatch(/writing the plan/);
    progress.done();
  });

  it('holds a line that stays (a note written meanwhile) until the question is answered', async () => {
    const progress = turningSpinner();
    let release: () => void = () => undefined;
    const answered = whileAsking(() => new Promise<void>((resolve) => (release = resolve)));
    const asked = written.length;
    progress.onEvent({ type: 'llm_notice', stage: 'decision', step: 1, message: 'the model is loading' });
    expect(written.slice(asked).join('')).not.toMatch(/loading/);
    release();
    await answered;
    expect(written.slice(asked).join('')).toMatch(/note: the model is loading/);
    progress.done();
  });
});

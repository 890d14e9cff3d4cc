// The REPL's line queue: lines typed while a question runs are read later, in order; a reader that gives up takes none.
import { describe, expect, it } from 'vitest';
import { LineQueue } from '../../src/cli/repl-line-queue.js';

describe('LineQueue', () => {
  it('gives the lines in the order they were typed, with whether each was pasted', async () => {
    const lines = new LineQueue();
    lines.push({ text: 'first question', pasted: false });
    lines.push({ text: 'pasted line', pasted: true });
    expect(lines.size).toBe(2);
    expect(await lines.next()).toEqual({ text: 'first question', pasted: false });
    expect(await lines.next()).toEqual({ text: 'pasted line', pasted: true });
    expect(lines.size).toBe(0);
  });

  it('wakes a waiting reader with the line typed after it started waiting', async () => {
    const lines = new LineQueue();
    const waiting = lines.next();
    lines.push({ text: 'y', pasted: false });
    expect(await waiting).toEqual({ text: 'y', pasted: false });
  });

  it('still gives the lines queued before the input ended, then null', async () => {
    const lines = new LineQueue();
    lines.push({ text: 'last question', pasted: false });
    lines.end();
    expect(lines.closed).toBe(true);
    expect((await lines.next())?.text).toBe('last question');
    expect(await lines.next()).toBeNull();
  });

  it('ends a waiting reader with null when the input ends', async () => {
    const lines = new LineQueue();
    const waiting = lines.next();
    lines.end();
    expect(await waiting).toBeNull();
  });

  it('leaves the line for the next reader when a reader gives up waiting', async () => {
    const lines = new LineQueue();
    const runEnded = new AbortController();
    const asking = lines.next(runEnded.signal);
    runEnded.abort(new Error('run ended'));
    await expect(asking).rejects.toThrow('run ended');
    lines.push({ text: 'y', pasted: false });
    expect(lines.size).toBe(1);
    expect((await lines.next())?.text).toBe('y');
  });

  it('takes no line for a reader whose signal has already aborted', async () => {
    const lines = new LineQueue();
    lines.push({ text: 'a question typed ahead', pasted: false });
    await expect(lines.next(AbortSignal.abort(new Error('cancelled')))).rejects.toThrow('cancelled');
    expect((await lines.next())?.text).toBe('a question typed ahead');
  });
});

// The one abort race: work that ignores its signal cannot hold its caller past the signal.
import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { untilAborted } from '../../src/time/until-aborted.js';

/** A promise the test settles by hand. */
function settleable<T>() {
  let resolve!: (value: T) => void;
  let reject!: (err: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('untilAborted', () => {
  it("settles with the work's value or error, and stops listening to the signal", async () => {
    const controller = new AbortController();
    const ok = settleable<number>();
    const waiting = untilAborted(ok.promise, controller.signal);
    ok.resolve(7);
    await expect(waiting).resolves.toBe(7);
    const bad = settleable<number>();
    const failing = untilAborted(bad.promise, controller.signal);
    bad.reject(new Error('server down'));
    await expect(failing).rejects.toThrow('server down');
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it("rejects with the signal's reason as soon as it aborts, whatever the work does later", async () => {
    const controller = new AbortController();
    const work = settleable<number>();
    const waiting = untilAborted(work.promise, controller.signal);
    controller.abort(new Error('deadline passed'));
    await expect(waiting).rejects.toThrow('deadline passed');
    work.reject(new Error('failed after the race was lost'));
    await expect(work.promise).rejects.toThrow();
  });

  it('rejects at once when the signal has already aborted, and a later failure of the work goes unheard', async () => {
    const controller = new AbortController();
    controller.abort(new Error('already over'));
    const work = settleable<number>();
    await expect(untilAborted(work.promise, controller.signal)).rejects.toThrow('already over');
    // Nothing else handles this rejection: were it unhandled, vitest would fail the run.
    work.reject(new Error('late failure'));
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });
});

// QuestionSlots: a hard limit on questions at once, refused (not queued) beyond it.
import { describe, expect, it } from 'vitest';
import { QuestionSlots } from '../../src/serve/question-slots.js';

describe('QuestionSlots', () => {
  it('refuses a question past the limit until one finishes, and counts a double release once', () => {
    const slots = new QuestionSlots(2);
    const first = slots.tryAcquire()!;
    expect(slots.tryAcquire()).not.toBeNull();
    expect(slots.tryAcquire()).toBeNull();
    first();
    first();
    expect(slots.running).toBe(1);
    expect(slots.tryAcquire()).not.toBeNull();
    expect(slots.tryAcquire()).toBeNull();
  });

  it('tells when the last running question has finished', async () => {
    const slots = new QuestionSlots(3);
    const releases = [slots.tryAcquire()!, slots.tryAcquire()!];
    let idle = false;
    const waiting = slots.idle().then(() => (idle = true));
    releases[0]!();
    await Promise.resolve();
    expect(idle).toBe(false);
    releases[1]!();
    await waiting;
    expect(idle).toBe(true);
  });
});

// What a person sees of a run whose replies the reader refused: the model's words and a plain diagnosis, never the
// feedback written for the model.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AgentOptions } from '../../src/agent/types.js';
import type { ScriptedTurn } from '../helpers/scripted-llm.js';
import { readReply } from '../../src/reply/read-reply.js';
import { okResult, perceptionJson, plan, setupRun, type SandboxTurn } from './fakes.js';

let baseDir: string;
beforeEach(async () => {
  baseDir = await mkdtemp(join(tmpdir(), 'cortex-loop-view-'));
});
afterEach(async () => {
  await rm(baseDir, { recursive: true, force: true });
});

const setup = (turns: ScriptedTurn[], sandboxTurns: SandboxTurn[], overrides: Partial<AgentOptions> = {}) => setupRun(baseDir, turns, sandboxTurns, overrides);

describe('runAgent, as a person sees a refused reply', () => {
  it('shows a person what the model said and one plain diagnosis when its reply is refused, never the instruction for the model', async () => {
    const prose = '<think>\nMaybe I should just explain.\n</think>\nI cannot compute this without more context about the numbers you mean.';
    // The sandbox refuses as the real one does: readReply before anything runs.
    const refuse = (options: { code: string }) => {
      const prepared = readReply(options.code);
      return prepared.ok ? okResult('FINAL_ANSWER: 5') : { ok: false as const, error: prepared.error, logs: [], calls: [], ms: 1 };
    };
    const { events, run } = setup([perceptionJson(['math']), prose, plan('return "FINAL_ANSWER: 5";')], [refuse, refuse], { maxLifelinesPerStep: 1 });
    const result = await run();
    const refused = events.find((e) => e.type === 'outcome' && e.outcome !== 'final_answer');
    expect(refused).toMatchObject({
      type: 'outcome',
      said: 'I cannot compute this without more context about the numbers you mean.',
      diagnosis: 'The model answered in words, without code to run or a final answer.',
    });
    // detail stays the feedback written for the model (it is what the retry prompt carries).
    expect(refused).toMatchObject({ detail: expect.stringContaining('Reply with one ```javascript block') });
    expect(result.steps[0]).toMatchObject({ code: '', reply: prose, outcome: 'sandbox_error', diagnosis: 'The model answered in words, without code to run or a final answer.' });
    expect(result).toMatchObject({ status: 'answered', answer: '5' });
  });

  it('gives up with plain diagnoses, not the feedback written for the model', async () => {
    const refuse = (options: { code: string }) => {
      const prepared = readReply(options.code);
      return prepared.ok ? okResult('undefined') : { ok: false as const, error: prepared.error, logs: [], calls: [], ms: 1 };
    };
    const { run } = setup([perceptionJson(['math']), '```python\nprint(add(2, 3))\n```', 'ok'], [refuse, refuse], { maxLifelinesPerStep: 1 });
    const result = await run();
    expect(result.status).toBe('gave_up');
    expect(result.reason).toContain('The model wrote Python; only JavaScript can run.');
    expect(result.reason).toContain('The model answered in words, without code to run or a final answer.');
    expect(result.reason).not.toMatch(/Reply with one|send the whole/);
  });
});

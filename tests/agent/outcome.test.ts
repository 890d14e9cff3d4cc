// The give-up summary a person reads: the question, what went wrong last, each try and what to do next, in plain words.
import { describe, expect, it } from 'vitest';
import { giveUpReason } from '../../src/agent/outcome.js';
import type { AgentStepRecord } from '../../src/agent/types.js';

function attempt(step: number, lifeline: number, diagnosis: string, calls: AgentStepRecord['tool_calls'] = []): AgentStepRecord {
  return { step, lifeline, strategy: 'conservative', servers: ['files'], code: 'async function solve() {}', reply: '', outcome: 'sandbox_error', error: `runtime: ${diagnosis}. Then send the corrected solve().`, diagnosis, tool_calls: calls };
}

describe('giveUpReason', () => {
  it('names the question, the last problem and the server to check when a tool failed', () => {
    const reason = giveUpReason({
      question: 'What is in\nnotes.txt?',
      steps: [attempt(1, 1, 'A tool call failed: no such file'), attempt(1, 0, 'A tool call failed: permission denied', [{ name: 'read_file', server: 'files', args: {}, ok: false, ms: 2 }])],
      cause: { kind: 'retries', step: 1 },
    });
    expect(reason.split('\n')[0]).toBe('No answer to "What is in notes.txt?": step 1 failed on all 2 tries, with no retries left.');
    expect(reason).toContain('What went wrong last: A tool call failed: permission denied');
    expect(reason).toContain('- step 1, try 1 (no tool calls): A tool call failed: no such file');
    expect(reason).toContain('- step 1, try 2 (used read_file (failed)): A tool call failed: permission denied');
    expect(reason.split('\n').at(-1)).toBe('To try: check the server "files" (cortex servers test files), then ask again; or rephrase the question.');
    expect(reason).not.toMatch(/lifeline|solve\(\)|conservative/);
  });

  it('leaves out the advice a tool error gives the model', () => {
    const reason = giveUpReason({
      question: 'Add them',
      steps: [attempt(1, 0, 'A tool call failed: tools.add was called with invalid arguments: a must be a number. Call it as tools.add({a: number, b: number}).')],
      cause: { kind: 'retries', step: 1 },
    });
    expect(reason).toContain('What went wrong last: A tool call failed: tools.add was called with invalid arguments: a must be a number.\n');
    expect(reason).not.toContain('Call it as');
  });

  it('suggests other words or a larger model when no server is to blame, and keeps the hint when the tries are cut', () => {
    const many = Array.from({ length: 60 }, (_, i) => attempt(1, 60 - i, `The code failed: ${'x'.repeat(200)}`));
    const reason = giveUpReason({ question: 'Q', steps: many, cause: { kind: 'retries', step: 1 } });
    expect(reason.length).toBeLessThanOrEqual(3_000);
    expect(reason.split('\n').at(-1)).toBe('To try: ask again in other words (say what you want more exactly), or use a larger model (--model).');
  });
});

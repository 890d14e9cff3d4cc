// What /stats counts: every question once, by what became of it (answered, gave up, failed, cancelled).
import { describe, expect, it } from 'vitest';
import type { AgentRunResult } from '../../src/agent/types.js';
import { SessionStats } from '../../src/cli/repl-commands.js';

function result(status: AgentRunResult['status'], tokens: number): AgentRunResult {
  return { status, answer: status === 'answered' ? 'yes' : null, session_id: 's', steps: [], usage: { prompt_tokens: tokens, completion_tokens: 1 }, timings: { total_ms: 1_000, llm_ms: 0, sandbox_ms: 0 }, reason: null, caution: null, sent: [] };
}

describe('SessionStats', () => {
  it('counts each outcome apart, a failed question included, and adds up the tokens of those with a result', () => {
    const stats = new SessionStats();
    stats.add(result('answered', 10));
    stats.add(result('cancelled', 20));
    stats.add(result('gave_up', 30));
    stats.add(result('answered', 40));
    stats.addFailure();
    expect(stats.describe()).toMatch(/^5 questions \(2 answered, 1 gave up, 1 failed, 1 cancelled\) · 104 tokens \(100 in, 4 out\) · cost unknown/);
  });
});

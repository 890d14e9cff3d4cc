// Token and cost budgets through the built CLI: a question that would pass one stops with what it spent; --json and /stats show spend.
import { afterEach, describe, expect, it } from 'vitest';
import { resultOf, runCli } from '../cli/run-cli.js';
import { ollamaChatReply, startFakeOllamaServer, type FakeLlmServer } from '../helpers/fake-ollama-server.js';
import { fenced, isPerception, ollamaEnv, PERCEPTION_JSON, tempProject } from './ask-harness.js';

let server: FakeLlmServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A model whose every reply reports `promptTokens` tokens read; its plans answer at once. */
async function countingModel(promptTokens: number): Promise<FakeLlmServer> {
  server = await startFakeOllamaServer({
    replies: (req) => {
      if (req.path !== '/api/chat') return undefined;
      if (isPerception(req)) return ollamaChatReply(PERCEPTION_JSON, { promptTokens, completionTokens: 0 });
      return ollamaChatReply(fenced('async function solve() { return "FINAL_ANSWER: 42"; }'), { promptTokens, completionTokens: 0 });
    },
  });
  return server;
}

const chatRequests = (s: FakeLlmServer) => s.requests.filter((r) => r.path === '/api/chat').length;

describe('budgets', () => {
  it('--token-budget stops a question before a request that would pass it, and says what it spent', async () => {
    const llm = await countingModel(10);
    const { profile } = tempProject();
    const run = await runCli(['--profile', profile, '--json', '--token-budget', '50', 'ask', 'What is 6 times 7?'], { env: ollamaEnv(llm.url) });
    const result = resultOf(run);
    expect(run.code).toBe(1);
    expect(result.status).toBe('gave_up');
    expect(result.reason).toBe('Stopped: the next request to the model would pass its token budget of 50 per question. Spent 0 tokens (about $0.00) on this question.');
    expect(result.spend).toMatchObject({ tokens: 0, limits: { tokens_per_question: 50 } });
    expect(chatRequests(llm)).toBe(0);
  });

  it('a cost budget counts the price table (the profile overriding config/prices.yaml) and --json shows the cost', async () => {
    const llm = await countingModel(50_000);
    const { profile } = tempProject({ extra: 'budget:\n  usd_per_question: 0.05\n  prices:\n    "ollama:*": { input: 1, output: 2 }\n' });
    const result = resultOf(await runCli(['--profile', profile, '--json', 'ask', 'What is 6 times 7?'], { env: ollamaEnv(llm.url) }));
    // Perception spent 50,000 tokens at $1 a million; the plan request would pass $0.05.
    expect(result.reason).toBe('Stopped: the next request to the model would pass its cost budget of $0.05 per question. Spent 50,000 tokens (about $0.05) on this question.');
    expect(result.spend).toMatchObject({ tokens: 50_000, cost_usd: 0.05, session_cost_usd: 0.05, limits: { usd_per_question: 0.05 } });
    expect(chatRequests(llm)).toBe(1);
  });

  it('a session budget holds across the REPL\'s questions, and /stats shows the spend', async () => {
    const llm = await countingModel(40_000);
    const { profile } = tempProject({ extra: 'budget:\n  tokens_per_session: 100000\n  prices:\n    "ollama:*": { input: 1, output: 2 }\n' });
    const run = await runCli(['--profile', profile], { env: ollamaEnv(llm.url), input: 'What is 6 times 7?\nAnd 6 times 8?\n/stats\n/exit\n' });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('42');
    expect(run.stderr).toContain("Gave up: Stopped: the next request to the model would pass the session's token budget of 100,000. Spent 40,000 tokens (about $0.04) on this question, 120,000 tokens (about $0.12) in this session.");
    expect(run.stderr).toMatch(/2 questions \(1 answered, 1 gave up, 0 failed, 0 cancelled\) · .* · about \$0\.1200 · /);
  });

  it('a session budget counts what the session spent before, when `ask -c` continues it in a new run', async () => {
    const llm = await countingModel(40_000);
    const { profile } = tempProject({ extra: 'budget:\n  tokens_per_session: 100000\n' });
    const first = resultOf(await runCli(['--profile', profile, '--json', 'ask', 'What is 6 times 7?'], { env: ollamaEnv(llm.url) }));
    expect(first).toMatchObject({ answer: '42', spend: { tokens: 80_000, session_tokens: 80_000 } });
    const second = resultOf(await runCli(['--profile', profile, '--json', 'ask', '-c', 'And 6 times 8?'], { env: ollamaEnv(llm.url) }));
    expect(second.session_id).toBe(first.session_id);
    expect(second).toMatchObject({ status: 'gave_up', spend: { tokens: 40_000, session_tokens: 120_000 } });
    expect(second.reason).toContain("would pass the session's token budget of 100,000");
  });
});

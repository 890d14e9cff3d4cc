// A plan that fires 5,000 calls at once through the built CLI: it ends at the call cap with bounded records, and the next question works.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_REFUSALS_RECORDED } from '../../src/sandbox/tool-proxy.js';
import { resultOf, runCli } from '../cli/run-cli.js';
import { ollamaChatReply, startFakeOllamaServer, type FakeLlmServer } from '../helpers/fake-ollama-server.js';
import { fenced, isPerception, ollamaEnv, PERCEPTION_JSON, tempProject } from './ask-harness.js';

const FLOOD = `async function solve() {
  const settled = await Promise.allSettled(Array.from({ length: 5000 }, (_, i) => mcp.call_tool("add", { a: i, b: 1 })));
  return "FINAL_ANSWER: " + settled.filter((s) => s.status === "fulfilled").length;
}`;
const PLAIN = 'async function solve() { return "FINAL_ANSWER: " + await tools.add({ a: 2, b: 3 }); }';
const CAP = 20;

let server: FakeLlmServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function traceLines(memoryDir: string, sessionId: string): Array<Record<string, unknown>> {
  const entry = readdirSync(memoryDir, { recursive: true, withFileTypes: true }).find((e) => e.name === `session-${sessionId}.trace.jsonl`);
  if (!entry) throw new Error(`no trace for session ${sessionId}`);
  return readFileSync(join(entry.parentPath, entry.name), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('cortex ask with a plan flooding the call cap (end to end)', () => {
  it('stops 5,000 calls at the cap within the run, summarises the rejected rest, and answers the next question', async () => {
    // The flood, the plan of the lifeline after it, and the next question's plan.
    const plans = [FLOOD, PLAIN, PLAIN];
    server = await startFakeOllamaServer({
      replies: (req) => {
        if (req.path !== '/api/chat') return undefined;
        if (isPerception(req)) return ollamaChatReply(PERCEPTION_JSON);
        const plan = plans.shift();
        return plan === undefined ? { status: 500, body: { error: 'no more plans scripted' } } : ollamaChatReply(fenced(plan));
      },
    });
    const { profile, memoryDir } = tempProject({ sandbox: { max_tool_calls_per_plan: CAP, timeout_ms: 30_000 }, steps: 'strategy:\n  max_steps: 1\n  max_lifelines_per_step: 1\n' });

    const flood = await runCli(['--profile', profile, 'ask', 'Add up a lot of numbers'], { env: ollamaEnv(server.url) });
    // Ended by the call cap (the run's own limit on calls), not by its deadline or a crash.
    expect(flood.stderr).toMatch(/\d[\d,]* further calls rejected by the call cap/);
    expect(flood.stderr).not.toMatch(/timed out|timeout/i);
    // The flood's attempt is everything before the retry is planned.
    const retryAt = flood.stderr.indexOf('planning (no retries left)');
    expect(retryAt).toBeGreaterThan(0);
    const floodAttempt = flood.stderr.slice(0, retryAt);
    const shownCalls = floodAttempt.split('\n').filter((l) => /^\s+[✓✗] /.test(l));
    expect(shownCalls.length).toBeLessThanOrEqual(CAP + MAX_REFUSALS_RECORDED + 1);

    const sessions = readdirSync(memoryDir, { recursive: true }).map(String).filter((f) => /session-.*\.trace\.jsonl$/.test(f));
    expect(sessions).toHaveLength(1);
    const sessionId = /session-(.*)\.trace\.jsonl$/.exec(sessions[0]!)![1]!;
    const calls = traceLines(memoryDir, sessionId).filter((l) => l.type === 'tool_call' && l.lifeline === 1);
    expect(calls.length).toBeLessThanOrEqual(CAP + MAX_REFUSALS_RECORDED + 1);
    expect(calls.filter((c) => c.ok)).toHaveLength(CAP);
    expect(String(calls.at(-1)!.error)).toMatch(/^[\d,]+ further calls rejected by the call cap$/);

    const next = await runCli(['--profile', profile, '--json', '--session', sessionId, 'ask', 'What is 2 + 3?'], { env: ollamaEnv(server.url) });
    expect(resultOf(next)).toMatchObject({ status: 'answered', answer: '5' });
  });
});

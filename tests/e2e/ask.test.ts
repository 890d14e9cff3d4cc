import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, resultOf } from '../cli/run-cli.js';
import { startFakeGeminiServer, geminiRoute, geminiTextReply } from '../helpers/fake-gemini-server.js';
import { startFakeOllamaServer, ollamaChatReply, type FakeLlmServer, type RecordedRequest } from '../helpers/fake-ollama-server.js';
import { PERCEPTION_JSON, fenced, isPerception, ollamaEnv, promptOf, tempProject } from './ask-harness.js';

const INDIA_CODES = [73, 78, 68, 73, 65];
const INDIA_EXP_SUM = INDIA_CODES.reduce((s, c) => s + Math.exp(c), 0);

let server: FakeLlmServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A fake Ollama that answers perception with JSON and each decision with the next plan. */
async function ollamaWithPlans(plans: string[]): Promise<FakeLlmServer> {
  const queue = [...plans];
  server = await startFakeOllamaServer({
    replies: (req: RecordedRequest) => {
      if (req.path !== '/api/chat') return undefined;
      if (isPerception(req)) return ollamaChatReply(PERCEPTION_JSON);
      const plan = queue.shift();
      return plan === undefined ? { status: 500, body: { error: 'no more plans scripted' } } : ollamaChatReply(fenced(plan));
    },
  });
  return server;
}

const decisionPrompts = (s: FakeLlmServer) => s.requests.filter((r) => r.path === '/api/chat' && !isPerception(r)).map(promptOf);

describe('cortex ask (end to end, real servers and sandbox, Ollama wire format)', () => {
  it('answers with a plan of two chained tool calls, and reports it in --json', async () => {
    const llm = await ollamaWithPlans([
      `async function solve() {
         const codes = await tools.strings_to_chars_to_int({ string: "INDIA" });
         const sum = await tools.int_list_to_exponential_sum({ numbers: codes });
         return "FINAL_ANSWER: " + sum;
       }`,
    ]);
    const { profile, memoryDir } = tempProject();
    const run = await runCli(['--profile', profile, '--json', 'ask', 'Sum the exponentials of the ASCII codes of INDIA'], { env: ollamaEnv(llm.url) });
    expect(run.code).toBe(0);
    const json = resultOf(run);
    expect(json).toMatchObject({ status: 'answered', answer: String(INDIA_EXP_SUM) });
    expect(json.steps).toHaveLength(1);
    expect(json.steps[0]).toMatchObject({ step: 1, strategy: 'conservative', servers: ['math'], outcome: 'final_answer', error: null });
    expect(json.steps[0].tool_calls.map((c: { name: string }) => c.name)).toEqual(['strings_to_chars_to_int', 'int_list_to_exponential_sum']);
    expect(json.steps[0].tool_calls[1].args).toEqual({ numbers: INDIA_CODES });
    expect(json.usage.prompt_tokens).toBeGreaterThan(0);
    expect(Object.keys(json.timings).sort()).toEqual(['llm_ms', 'sandbox_ms', 'total_ms']);
    expect(typeof json.session_id).toBe('string');

    const sessionFile = findFile(memoryDir, `session-${json.session_id}.json`);
    const items = JSON.parse(readFileSync(sessionFile, 'utf8'));
    expect(items.map((i: { type: string }) => i.type)).toContain('final_answer');
    expect(existsSync(sessionFile.replace(/\.json$/, '.trace.jsonl'))).toBe(true);
  });

  it('asks a question given to `cortex` itself, as `llm "…"` does', async () => {
    const llm = await ollamaWithPlans(['async function solve() { return "FINAL_ANSWER: " + await tools.multiply({ a: 6, b: 7 }); }']);
    const { profile } = tempProject();
    const run = await runCli(['--profile', profile, '--json', 'What is 6 times 7?'], { env: ollamaEnv(llm.url) });
    expect(run.code).toBe(0);
    expect(resultOf(run)).toMatchObject({ status: 'answered', answer: '42' });
  });

  it('keeps --json stdout one JSON object when the LLM answers with an HTML error page', async () => {
    const llm = await startFakeOllamaServer({
      replies: (req) => (req.path === '/api/chat' ? { status: 502, body: '<html><body>Bad gateway</body></html>', headers: { 'content-type': 'text/html' } } : undefined),
    });
    const { profile } = tempProject();
    const run = await runCli(['--profile', profile, '--json', 'ask', 'What is 6 times 7?'], { env: ollamaEnv(llm.url) });
    await llm.close();
    expect(run.code).not.toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ answer: null });
  });

  it('carries a FURTHER_PROCESSING_REQUIRED result into the second step', async () => {
    const llm = await ollamaWithPlans([
      `async function solve() { const c = await tools.strings_to_chars_to_int({ string: "AB" }); return "FURTHER_PROCESSING_REQUIRED: " + JSON.stringify(c); }`,
      `async function solve() { return "FINAL_ANSWER: " + await tools.add({ a: 65, b: 66 }); }`,
    ]);
    const { profile } = tempProject();
    const run = await runCli(['--profile', profile, '--json', 'ask', 'Add the ASCII codes of AB'], { env: ollamaEnv(llm.url) });
    const json = resultOf(run);
    expect(json).toMatchObject({ status: 'answered', answer: '131' });
    expect(json.steps.map((s: { step: number; outcome: string }) => [s.step, s.outcome])).toEqual([
      [1, 'further_processing'],
      [2, 'final_answer'],
    ]);
    const second = decisionPrompts(llm)[1]!;
    expect(second).toContain('[65,66]');
    expect(second).toContain('Add the ASCII codes of AB');
  });

  it('retries after a sandbox error with the error and the failing code in the prompt', async () => {
    const llm = await ollamaWithPlans([
      `async function solve() { const r = await tools.divide({ a: 1, b: 0 }); return "FINAL_ANSWER: " + r; }`,
      `async function solve() { return "FINAL_ANSWER: " + await tools.divide({ a: 1, b: 4 }); }`,
    ]);
    const { profile } = tempProject();
    const run = await runCli(['--profile', profile, '--json', 'ask', 'What is 1/4?'], { env: ollamaEnv(llm.url) });
    const json = resultOf(run);
    expect(json).toMatchObject({ status: 'answered', answer: '0.25' });
    expect(json.steps[0]).toMatchObject({ outcome: 'sandbox_error' });
    expect(json.steps[0].error).toMatch(/zero/i);
    const retry = decisionPrompts(llm)[1]!;
    expect(retry).toMatch(/zero/i);
    expect(retry).toContain('tools.divide({ a: 1, b: 0 })');
  });

  it('stops a plan at the tool-call cap and says so to the model', async () => {
    const llm = await ollamaWithPlans([
      `async function solve() { let s = 0; for (let i = 0; i < 4; i++) s = await tools.add({ a: s, b: 1 }); return "FINAL_ANSWER: " + s; }`,
      `async function solve() { return "FINAL_ANSWER: " + await tools.multiply({ a: 2, b: 2 }); }`,
    ]);
    const { profile } = tempProject({ sandbox: { max_tool_calls_per_plan: 3 } });
    const run = await runCli(['--profile', profile, '--json', 'ask', 'Count to four'], { env: ollamaEnv(llm.url) });
    const json = resultOf(run);
    expect(json.steps[0].outcome).toBe('sandbox_error');
    expect(json.steps[0].tool_calls.map((c: { ok: boolean }) => c.ok)).toEqual([true, true, true, false]);
    expect(decisionPrompts(llm)[1]).toMatch(/3 tool calls|call cap|at most 3/i);
    expect(json.answer).toBe('4');
  });

  it('times out a plan that never returns and recovers on the next lifeline', async () => {
    const llm = await ollamaWithPlans([
      `async function solve() { for (;;) {} }`,
      `async function solve() { return "FINAL_ANSWER: done"; }`,
    ]);
    const { profile } = tempProject({ sandbox: { timeout_ms: 1000 } });
    const run = await runCli(['--profile', profile, '--json', 'ask', 'Loop'], { env: ollamaEnv(llm.url) });
    const json = resultOf(run);
    expect(json.steps[0]).toMatchObject({ outcome: 'sandbox_error' });
    expect(json.steps[0].error).toMatch(/time/i);
    expect(json).toMatchObject({ status: 'answered', answer: 'done' });
  });

  it('gives up with exit code 1 when every lifeline fails', async () => {
    const llm = await ollamaWithPlans(Array(3).fill(`async function solve() { throw new Error("nope"); }`));
    const { profile } = tempProject();
    const run = await runCli(['--profile', profile, 'ask', 'Impossible'], { env: ollamaEnv(llm.url) });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/Gave up: .*nope/s);
  });

  for (const [strategy, marker] of [
    ['conservative', 'STRATEGY: CONSERVATIVE'],
    ['exploratory-parallel', 'STRATEGY: EXPLORATORY, PARALLEL'],
    ['exploratory-sequential', 'STRATEGY: EXPLORATORY, SEQUENTIAL'],
  ] as const) {
    it(`uses the ${strategy} prompt when --strategy ${strategy} is given`, async () => {
      const llm = await ollamaWithPlans([`async function solve() { return "FINAL_ANSWER: ok"; }`]);
      const { profile } = tempProject();
      const run = await runCli(['--profile', profile, '--strategy', strategy, '--json', 'ask', 'Say ok'], { env: ollamaEnv(llm.url) });
      expect(resultOf(run).steps[0].strategy).toBe(strategy);
      expect(decisionPrompts(llm)[0]).toContain(marker);
    });
  }

  it('answers through the Gemini wire format when GEMINI_API_KEY is set', async () => {
    server = await startFakeGeminiServer({
      apiKey: 'test-key',
      replies: (req) => {
        if (geminiRoute(req)?.method !== 'generateContent') return undefined;
        return req.body?.generationConfig?.responseMimeType === 'application/json'
          ? geminiTextReply(PERCEPTION_JSON)
          : geminiTextReply(fenced(`async function solve() { return "FINAL_ANSWER: " + await tools.power({ a: 2, b: 10 }); }`));
      },
    });
    const { profile } = tempProject();
    const env = { ...ollamaEnv('http://127.0.0.1:9'), GEMINI_API_KEY: 'test-key', GEMINI_BASE_URL: server.url };
    const run = await runCli(['--profile', profile, 'ask', 'What is 2^10?'], { env });
    expect(run.stdout.trim()).toBe('1024');
    expect(run.code).toBe(0);
  });

  it('says how to set up an LLM and exits 3 when none is reachable', async () => {
    const { profile } = tempProject();
    const run = await runCli(['--profile', profile, '--json', 'ask', 'Hello?'], { env: ollamaEnv('http://127.0.0.1:9') });
    expect(run.code).toBe(3);
    expect(JSON.parse(run.stdout)).toMatchObject({ status: 'error', answer: null, error: { code: 'llm_unavailable' } });
    expect(run.stderr).toMatch(/GEMINI_API_KEY.*ollama pull/s);
  });
});

function findFile(dir: string, name: string): string {
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile() && entry.name === name) return join(entry.parentPath, entry.name);
  }
  throw new Error(`${name} not found under ${dir}`);
}

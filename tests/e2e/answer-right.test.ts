// End to end over the Ollama wire format: multi-step answers carry earlier results, bad results are fed back, prose answers count, and a recorded run replays offline.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/paths.js';
import { runCli, resultOf } from '../cli/run-cli.js';
import { startFakeOllamaServer, ollamaChatReply, type FakeLlmServer, type RecordedRequest } from '../helpers/fake-ollama-server.js';
import { PERCEPTION_JSON, fenced, isPerception, ollamaEnv, promptOf, tempProject } from './ask-harness.js';

const INDIA_CODES = [73, 78, 68, 73, 65];
const INDIA_EXP_SUM = INDIA_CODES.reduce((s, c) => s + Math.exp(c), 0);
/** A port nothing listens on: "no LLM reachable". */
const NO_LLM = 'http://127.0.0.1:9';

let server: FakeLlmServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A fake Ollama: perception gets JSON; the n-th decision gets `decide(prompt, n)` as the model's reply. */
async function ollama(decide: (prompt: string, n: number) => string): Promise<FakeLlmServer> {
  let decisions = 0;
  server = await startFakeOllamaServer({
    replies: (req: RecordedRequest) => {
      if (req.path !== '/api/chat') return undefined;
      if (isPerception(req)) return ollamaChatReply(PERCEPTION_JSON);
      return ollamaChatReply(decide(promptOf(req), decisions++));
    },
  });
  return server;
}

const chatRequests = (s: FakeLlmServer) => s.requests.filter((r) => r.path === '/api/chat');
const decisionPrompts = (s: FakeLlmServer) => chatRequests(s).filter((r) => !isPerception(r)).map(promptOf);

/** Step 1 finds the codes, step 2 checks something else, step 3 needs step 1's codes, read back from its prompt. */
function threeStepModel(prompt: string, n: number): string {
  if (n === 0) return fenced('async function solve() {\n  const codes = await tools.strings_to_chars_to_int({ string: "INDIA" });\n  return "FURTHER_PROCESSING_REQUIRED: " + JSON.stringify(codes);\n}');
  if (n === 1) return fenced('async function solve() {\n  const n = await tools.add({ a: 2, b: 3 });\n  return "FURTHER_PROCESSING_REQUIRED: checked " + n;\n}');
  const codes = /===== STEP 1 RESULT [0-9a-f]{16} =====\n(\[[\d,]+\])/.exec(prompt)?.[1] ?? 'undefined';
  return fenced(`async function solve() {\n  return "FINAL_ANSWER: " + await tools.int_list_to_exponential_sum({ numbers: ${codes} });\n}`);
}

describe('cortex ask answers right with imperfect replies (end to end, Ollama wire format)', () => {
  it('answers a three-step question whose last step needs the first step\'s result, perceiving once', async () => {
    const llm = await ollama(threeStepModel);
    const { profile } = tempProject();
    const run = await runCli(['--profile', profile, '--json', 'ask', 'Sum the exponentials of the ASCII codes of INDIA, after checking 2 + 3'], { env: ollamaEnv(llm.url) });
    expect(run.code).toBe(0);
    const json = resultOf(run);
    expect(json).toMatchObject({ status: 'answered', answer: String(INDIA_EXP_SUM) });
    expect(json.steps.map((s: { step: number; outcome: string }) => [s.step, s.outcome])).toEqual([
      [1, 'further_processing'],
      [2, 'further_processing'],
      [3, 'final_answer'],
    ]);
    const third = decisionPrompts(llm)[2]!;
    expect(third).toMatch(/===== STEP 1 RESULT [0-9a-f]{16} =====\n\[73,78,68,73,65\]/);
    expect(third).toMatch(/===== STEP 2 RESULT [0-9a-f]{16} =====\nchecked 5/);
    expect(third).toContain('the LAST step');
    // One perception and three decisions: perception no longer runs at every step (it took 6 calls before).
    expect(chatRequests(llm).filter(isPerception)).toHaveLength(1);
    expect(chatRequests(llm)).toHaveLength(4);
  });

  it('feeds a plan that returns undefined back with its code, and answers on the next lifeline', async () => {
    const llm = await ollama((_prompt, n) =>
      n === 0
        ? fenced('async function solve() {\n  const r = await tools.add({ a: 2, b: 3 });\n  return "FURTHER_PROCESSING_REQUIRED: " + r.total;\n}')
        : fenced('async function solve() {\n  return "FINAL_ANSWER: " + await tools.add({ a: 2, b: 3 });\n}'),
    );
    const { profile } = tempProject();
    const run = await runCli(['--profile', profile, '--json', 'ask', 'Add 2 and 3'], { env: ollamaEnv(llm.url) });
    expect(run.code).toBe(0);
    const json = resultOf(run);
    expect(json).toMatchObject({ status: 'answered', answer: '5' });
    expect(json.steps.map((s: { outcome: string }) => s.outcome)).toEqual(['invalid_plan', 'final_answer']);
    const retry = decisionPrompts(llm)[1]!;
    expect(retry).toContain('solve() returned "FURTHER_PROCESSING_REQUIRED: undefined", which is not a result');
    expect(retry).toContain('r.total');
  });

  it('takes a reply with no code and a FINAL_ANSWER line as the answer', async () => {
    const llm = await ollama(() => 'No tool is needed for this: it is common knowledge.\n\n**FINAL_ANSWER:** Paris');
    const { profile } = tempProject();
    const run = await runCli(['--profile', profile, 'ask', 'What is the capital of France?'], { env: ollamaEnv(llm.url) });
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toBe('Paris');
  });

  it('records a run, then replays it to the same answer with no LLM reachable', async () => {
    const llm = await ollama(threeStepModel);
    const { profile } = tempProject();
    const file = join(mkdtempSync(join(tmpdir(), 'cortex-rec-')), 'session.jsonl');
    const question = 'Sum the exponentials of the ASCII codes of INDIA, after checking 2 + 3';
    const recorded = await runCli(['--profile', profile, '--json', 'ask', '--record', file, question], { env: ollamaEnv(llm.url) });
    expect(recorded.code).toBe(0);
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(1 + 4);
    await llm.close();
    server = undefined;

    const replayed = await runCli(['--profile', profile, '--json', 'ask', '--replay', file, question], { env: ollamaEnv(NO_LLM) });
    expect(replayed.code).toBe(0);
    expect(resultOf(replayed).answer).toBe(resultOf(recorded).answer);
    expect(resultOf(replayed).answer).toBe(String(INDIA_EXP_SUM));
  });

  it('replays a recorded qwen-style session (missing async, shadowing param, smart quotes, self-call, JSON tool call, prose answer) offline', async () => {
    const { profile } = tempProject();
    const file = join(PROJECT_ROOT, 'tests/fixtures/sessions/qwen-style-india-three-steps.jsonl');
    const run = await runCli(['--profile', profile, '--json', 'ask', '--replay', file, 'What is the sum of the exponentials of the ASCII codes of INDIA?'], { env: ollamaEnv(NO_LLM) });
    expect(run.code).toBe(0);
    const json = resultOf(run);
    expect(json).toMatchObject({ status: 'answered', answer: String(INDIA_EXP_SUM) });
    expect(json.steps.map((s: { outcome: string }) => s.outcome)).toEqual(['further_processing', 'further_processing', 'final_answer']);
    expect(json.steps.every((s: { lifeline: number }) => s.lifeline === 2)).toBe(true);
  });

  it('refuses --record and --replay together', async () => {
    const { profile } = tempProject();
    const run = await runCli(['--profile', profile, 'ask', '--record', 'a.jsonl', '--replay', 'b.jsonl', 'x'], { env: ollamaEnv(NO_LLM) });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('--record and --replay cannot be used together');
  });
});

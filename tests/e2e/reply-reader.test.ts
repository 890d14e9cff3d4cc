// End to end over the built CLI: what a user gets from replies the reader must read as a careful reviewer would (issue 22).
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, resultOf } from '../cli/run-cli.js';
import { startFakeOllamaServer, ollamaChatReply, type FakeLlmServer, type RecordedRequest } from '../helpers/fake-ollama-server.js';
import { PERCEPTION_JSON, isPerception, ollamaEnv, tempProject } from './ask-harness.js';

let server: FakeLlmServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A fake Ollama that answers perception with JSON and each decision with the next raw reply, as written. */
async function ollamaWithReplies(replies: string[]): Promise<FakeLlmServer> {
  const queue = [...replies];
  server = await startFakeOllamaServer({
    replies: (req: RecordedRequest) => {
      if (req.path !== '/api/chat') return undefined;
      if (isPerception(req)) return ollamaChatReply(PERCEPTION_JSON);
      const reply = queue.shift();
      return reply === undefined ? { status: 500, body: { error: 'no more replies scripted' } } : ollamaChatReply(reply);
    },
  });
  return server;
}

describe('cortex ask --json with replies in the shapes other agents meet', () => {
  it('keeps a multi-line markdown FINAL_ANSWER whole', async () => {
    const table = '| tool | result |\n|---|---|\n| add(2, 3) | 5 |\n\n- the sum is **5**';
    const llm = await ollamaWithReplies([`FINAL_ANSWER:\n${table}\n`]);
    const run = await runCli(['--profile', tempProject().profile, '--json', 'ask', 'Add 2 and 3, as a table'], { env: ollamaEnv(llm.url) });
    expect(resultOf(run)).toMatchObject({ status: 'answered', answer: table });
  });

  it('reports a prose reply with the model words kept as its reply and a plain diagnosis, then the code that actually ran', async () => {
    const prose = '<think>hmm</think>\nI would need a calculator for that.';
    const runner = '```javascript\nasync function solve() {\n  return "FINAL_ANSWER: " + (await tools.add({ a: 2, b: 3 }));\n}\nasync function main() { console.log(await solve()); }\nmain();\n```';
    const llm = await ollamaWithReplies([prose, runner]);
    const run = await runCli(['--profile', tempProject().profile, '--json', 'ask', 'Add 2 and 3'], { env: ollamaEnv(llm.url) });
    const json = resultOf(run);
    expect(json).toMatchObject({ status: 'answered', answer: '5' });
    expect(json.steps[0]).toMatchObject({ reply: prose, code: '', outcome: 'sandbox_error', diagnosis: 'The model answered in words, without code to run or a final answer.' });
    // The runner is gone from the code that ran, so solve ran once: one tool call.
    expect(json.steps[1].reply).toBe(runner);
    expect(json.steps[1].code).toContain('async function solve()');
    expect(json.steps[1].code).not.toContain('main');
    expect(json.steps[1].tool_calls.map((c: { name: string }) => c.name)).toEqual(['add']);
  });

  it('shows a person what the model said and why it was refused, never the instruction meant for the model', async () => {
    const prose = 'I would need a calculator for that.';
    const llm = await ollamaWithReplies([prose, prose, prose]);
    const run = await runCli(['--profile', tempProject().profile, 'ask', 'Add 2 and 3'], { env: ollamaEnv(llm.url) });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('the model said: I would need a calculator for that.');
    expect(run.stderr).toContain('The model answered in words, without code to run or a final answer.');
    // The feedback written for the model (what to reply with) is in its prompt, not on the user's screen.
    const decisions = llm.requests.filter((r) => r.path === '/api/chat' && !isPerception(r));
    expect(JSON.stringify(decisions.at(-1)!.body)).toContain('FINAL_ANSWER: <answer>');
    expect(run.stderr).not.toContain('FINAL_ANSWER: <answer>');
    expect(run.stderr).not.toContain('```javascript');
  });
});

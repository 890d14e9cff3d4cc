// `cortex ask --replay FILE` refuses a recording made for another question instead of answering with its replies.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../cli/run-cli.js';
import { startFakeOllamaServer, ollamaChatReply, type FakeLlmServer } from '../helpers/fake-ollama-server.js';
import { PERCEPTION_JSON, fenced, isPerception, ollamaEnv, tempProject } from './ask-harness.js';

/** Nothing listens here: a replay must not need an LLM. */
const NO_LLM = 'http://127.0.0.1:9';

let server: FakeLlmServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('cortex ask --replay', () => {
  it('says a recording of another question does not match, naming both, and exits 2; the recorded question replays', async () => {
    server = await startFakeOllamaServer({
      replies: (req) => {
        if (req.path !== '/api/chat') return undefined;
        if (isPerception(req)) return ollamaChatReply(PERCEPTION_JSON);
        return ollamaChatReply(fenced('async function solve() { return "FINAL_ANSWER: 42"; }'));
      },
    });
    const { profile } = tempProject();
    const file = join(mkdtempSync(join(tmpdir(), 'cortex-replay-')), 'run.jsonl');
    const recorded = await runCli(['--profile', profile, 'ask', '--record', file, 'What is 6 times 7?'], { env: ollamaEnv(server.url) });
    expect(recorded.code).toBe(0);
    expect(JSON.parse(readFileSync(file, 'utf8').split('\n')[0]!)).toMatchObject({ question: 'What is 6 times 7?' });

    const other = await runCli(['--profile', profile, 'ask', '--replay', file, 'What is the capital of France?'], { env: ollamaEnv(NO_LLM) });
    expect(other.code).toBe(2);
    expect(other.stdout).toBe('');
    expect(other.stderr).toContain(`the recording ${file} does not match this question: it was made for "What is 6 times 7?", not "What is the capital of France?"`);

    const same = await runCli(['--profile', profile, 'ask', '--replay', file, 'What is  6 times 7?'], { env: ollamaEnv(NO_LLM) });
    expect(same.code).toBe(0);
    expect(same.stdout.trim()).toBe('42');
  });
});

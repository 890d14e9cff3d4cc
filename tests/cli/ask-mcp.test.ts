// `cortex ask` with servers from --mcp-config: a slow server it does not use neither delays nor outlives the question.
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, resultOf } from './run-cli.js';
import { startFakeOllamaServer, ollamaChatReply, type FakeLlmServer } from '../helpers/fake-ollama-server.js';
import { PERCEPTION_JSON, fenced, isPerception, ollamaEnv, promptOf, tempProject } from '../e2e/ask-harness.js';
import { PROJECT_ROOT } from '../../src/paths.js';

let llm: FakeLlmServer | undefined;
afterEach(async () => {
  await llm?.close();
  llm = undefined;
});

describe('cortex ask with a slow server it does not use', () => {
  it('answers, and exits, while the slow server (limit 120 s) has not started', async () => {
    llm = await startFakeOllamaServer({
      replies: (req) => {
        if (req.path !== '/api/chat') return undefined;
        return ollamaChatReply(isPerception(req) ? PERCEPTION_JSON : fenced('async function solve() { return "FINAL_ANSWER: " + await tools.add({ a: 2, b: 3 }); }'));
      },
    });
    const { root, profile } = tempProject();
    const slow = join(root, 'slow.json');
    // Never answers initialize; its 120 s limit is far past the test's timeout, so the run ending is the proof.
    writeFileSync(slow, JSON.stringify({ mcpServers: { slow: { command: 'node', args: [join(PROJECT_ROOT, 'tests', 'fixtures', 'bad-server.mjs'), 'silent'], timeout: 120 } } }));
    const run = await runCli(['--profile', profile, '--mcp-config', slow, '--json', 'ask', 'What is 2 + 3?'], { env: ollamaEnv(llm.url) });
    expect(resultOf(run)).toMatchObject({ status: 'answered', answer: '5' });
    expect(run.code).toBe(0);
    // Perception was told about the slow server, so it could have chosen it.
    expect(promptOf(llm.requests.find(isPerception)!)).toContain('- slow: (no description)');
    expect(run.stderr).not.toMatch(/warning: .*slow/);
  });
});

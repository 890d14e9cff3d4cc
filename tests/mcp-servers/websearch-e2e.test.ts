// End to end: `cortex ask` with a fake Ollama whose plan searches the local DuckDuckGo stand-in, then reads the
// first result page (served on 127.0.0.1) through the real websearch server and sandbox.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtPath } from '../../src/paths.js';
import { resultOf, runCli } from '../cli/run-cli.js';
import { fenced, isPerception, ollamaEnv, tempProject } from '../e2e/ask-harness.js';
import { ollamaChatReply, startFakeOllamaServer, type FakeLlmServer, type RecordedRequest } from '../helpers/fake-ollama-server.js';
import { startFixtureServer, type FixtureServer } from '../fixtures/websearch/fixture-server.js';

const PLAN = `async function solve() {
  const found = await tools.duckduckgo_search_results({ query: "why does the eiffel tower grow in summer", max_results: 3 });
  const url = found.match(/URL: (\\S+)/)[1];
  const page = await tools.download_raw_html_from_url({ url });
  const fact = page.split("\\n").find((line) => line.includes("its summit rises"));
  return "FINAL_ANSWER: " + fact;
}`;

let fixtures: FixtureServer;
let llm: FakeLlmServer;

beforeAll(async () => {
  fixtures = await startFixtureServer();
  llm = await startFakeOllamaServer({
    replies: (req: RecordedRequest) => {
      if (req.path !== '/api/chat') return undefined;
      if (isPerception(req)) {
        return ollamaChatReply(
          JSON.stringify({ intent: 'look up', entities: ['Eiffel Tower'], tool_hint: 'duckduckgo_search_results', selected_servers: ['websearch'] }),
        );
      }
      return ollamaChatReply(fenced(PLAN));
    },
  });
});

afterAll(async () => {
  await llm.close();
  await fixtures.close();
});

describe('cortex ask with the websearch server', () => {
  it('answers a question by searching and then reading a page served on localhost', async () => {
    const { profile } = tempProject({
      steps: 'strategy:\n  max_steps: 1\n  max_lifelines_per_step: 1\n',
      extra: 'security:\n  block_private_network: false\n',
      servers:
        `  - id: websearch\n    script: ${builtPath('mcp-servers/websearch/main.js')}\n` +
        `    description: Web search and web pages\n    env:\n      CORTEX_DDG_URL: ${fixtures.searchUrl}\n`,
    });
    const run = await runCli(['--profile', profile, '--json', 'ask', 'How much taller does the Eiffel Tower get in summer?'], {
      env: ollamaEnv(llm.url),
    });
    expect(run.code, run.stderr).toBe(0);
    const json = resultOf(run);
    expect(json).toMatchObject({ status: 'answered' });
    expect(json.answer).toContain('its summit rises by as much as 15 centimetres');
    expect(json.steps[0].tool_calls.map((c: { name: string }) => c.name)).toEqual(['duckduckgo_search_results', 'download_raw_html_from_url']);
    expect(json.steps[0].tool_calls[1].args).toEqual({ url: fixtures.url('/eiffel-tower-article.html') });
    expect(fixtures.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /html/', 'GET /eiffel-tower-article.html']);
  });
});

// Memory across sessions: a second session's plan finds, with search_past_sessions, what an earlier session answered.
import { afterEach, describe, expect, it } from 'vitest';
import { builtPath } from '../../src/paths.js';
import { runCli, resultOf } from '../cli/run-cli.js';
import { startFakeOllamaServer, ollamaChatReply, type FakeLlmServer, type RecordedRequest } from '../helpers/fake-ollama-server.js';
import { fenced, isPerception, ollamaEnv, promptOf, tempProject } from './ask-harness.js';

const HISTORY_SERVER_YAML = `  - id: history\n    script: ${builtPath('mcp-servers/history/main.js')}\n    description: Earlier sessions\n`;
const PERCEPTION = JSON.stringify({ intent: 'recall', entities: [], tool_hint: 'search_past_sessions', selected_servers: ['history'] });

let server: FakeLlmServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('memory across sessions (built CLI, real history server)', () => {
  it('lets a plan in a new session find the answer an earlier session gave', async () => {
    server = await startFakeOllamaServer({
      replies: (req: RecordedRequest) => {
        if (req.path !== '/api/chat') return undefined;
        if (isPerception(req)) return ollamaChatReply(PERCEPTION);
        const prompt = promptOf(req);
        if (prompt.includes('What is the capital of Australia?')) {
          return ollamaChatReply(fenced('async function solve() { return "FINAL_ANSWER: Canberra, since 1913"; }'));
        }
        // The second session's plan looks the earlier answer up.
        return ollamaChatReply(
          fenced(`async function solve() {
            const hits = await tools.search_past_sessions({ query: "capital Australia" });
            return "FINAL_ANSWER: " + hits[0].answer + " (session " + hits[0].session_id + ")";
          }`),
        );
      },
    });
    const { profile } = tempProject({ servers: HISTORY_SERVER_YAML });
    const env = ollamaEnv(server.url);
    const first = resultOf(await runCli(['--profile', profile, '--json', 'ask', 'What is the capital of Australia?'], { env }));
    expect(first).toMatchObject({ status: 'answered', answer: 'Canberra, since 1913' });

    const second = resultOf(await runCli(['--profile', profile, '--json', 'ask', 'Which city did I learn about last time?'], { env }));
    expect(second.session_id).not.toBe(first.session_id);
    expect(second).toMatchObject({ status: 'answered', answer: `Canberra, since 1913 (session ${first.session_id})` });
    expect(second.steps[0].tool_calls.map((c: { name: string }) => c.name)).toEqual(['search_past_sessions']);
  });
});

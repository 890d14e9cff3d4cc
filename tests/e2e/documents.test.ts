import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PROJECT_ROOT, builtPath } from '../../src/paths.js';
import { resultOf, runCli } from '../cli/run-cli.js';
import { startFakeOllamaServer, ollamaChatReply, type FakeLlmServer } from '../helpers/fake-ollama-server.js';
import { fenced, isPerception, ollamaEnv, promptOf, tempProject } from './ask-harness.js';

const PLAN = `async function solve() {
  const found = await tools.search_stored_documents({ query: "Hollowmere wind farm maintenance budget", k: 2 });
  const lines = found.split("\\n");
  const i = lines.findIndex((l) => l.includes("maintenance budget"));
  const source = lines.slice(i).find((l) => l.startsWith("[Source:"));
  return "FINAL_ANSWER: " + lines[i].trim() + " " + source.replace(/ score .*/, "");
}`;

let server: FakeLlmServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('cortex ask about a dropped PDF (end to end)', () => {
  it('answers from the documents folder with the source file and page', async () => {
    server = await startFakeOllamaServer({
      replies: (req) => {
        if (req.path !== '/api/chat') return undefined;
        if (isPerception(req)) {
          return ollamaChatReply(JSON.stringify({ intent: 'look up', entities: ['Hollowmere'], tool_hint: 'search_stored_documents', selected_servers: ['documents'] }));
        }
        return ollamaChatReply(fenced(PLAN));
      },
    });
    const { profile, documentsDir } = tempProject({
      servers: `  - id: documents\n    script: ${builtPath('mcp-servers/documents/main.js')}\n    description: the user's documents\n`,
    });
    mkdirSync(documentsDir);
    copyFileSync(join(PROJECT_ROOT, 'tests', 'fixtures', 'corpus', 'pdf', 'wind-report.pdf'), join(documentsDir, 'wind-report.pdf'));
    const run = await runCli(['--profile', profile, '--json', 'ask', 'According to my documents, what was the Hollowmere maintenance budget?'], {
      env: ollamaEnv(server.url),
    });
    const json = resultOf(run);
    expect(json.status).toBe('answered');
    expect(json.answer).toBe('The maintenance budget was 3.4 million euros. [Source: wind-report.pdf, ID: wind-report.pdf#1, page 2]');
    const decision = server.requests.filter((r) => r.path === '/api/chat' && !isPerception(r)).map(promptOf)[0]!;
    expect(decision).toContain('tools.search_stored_documents(');
  });
});

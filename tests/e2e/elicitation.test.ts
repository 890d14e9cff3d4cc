// A server that asks the person a question in the middle of a tool call: the REPL asks it on its own input; `ask`
// without a terminal declines it, saying nobody can answer.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/paths.js';
import { resultOf, runCli } from '../cli/run-cli.js';
import { ollamaChatReply, startFakeOllamaServer, type FakeLlmServer } from '../helpers/fake-ollama-server.js';
import { fenced, isPerception, ollamaEnv, tempProject } from './ask-harness.js';

let server: FakeLlmServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const BOOKING_SERVER = `  - id: booking\n    command: ${process.execPath}\n    args: [${JSON.stringify(join(PROJECT_ROOT, 'tests/fixtures/asking-server.mjs'))}]\n    description: Table bookings\n`;

async function bookingModel(): Promise<FakeLlmServer> {
  server = await startFakeOllamaServer({
    replies: (req) => {
      if (req.path !== '/api/chat') return undefined;
      if (isPerception(req)) return ollamaChatReply(JSON.stringify({ intent: 'book', entities: [], tool_hint: '', selected_servers: ['booking'] }));
      return ollamaChatReply(fenced('async function solve() { return "FINAL_ANSWER: " + await tools.book_table({}); }'));
    },
  });
  return server;
}

describe('a server that asks the person (elicitation)', () => {
  it('asks in the REPL, field by field, and the tool gets the answers', async () => {
    const llm = await bookingModel();
    const { profile } = tempProject({ servers: BOOKING_SERVER });
    const run = await runCli(['--profile', profile], { env: ollamaEnv(llm.url), input: 'Book me a table\ny\nAda\n4\n/exit\n' });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('The MCP server "booking" asks: Who is the table for?');
    expect(run.stdout).toContain('booked for Ada, 4 guests');
  });

  it('declines in `ask` without a terminal, and the tool says so', async () => {
    const llm = await bookingModel();
    const { profile } = tempProject({ servers: BOOKING_SERVER });
    const json = resultOf(await runCli(['--profile', profile, '--json', 'ask', 'Book me a table'], { env: ollamaEnv(llm.url) }));
    expect(json).toMatchObject({ status: 'answered', answer: 'not booked (decline)' });
  });
});

// `cortex mcp` asks its MCP client, when the client can answer (the elicitation capability): a tool server's request
// for input, and Cortex-R's own question before a tool that needs the user's yes. A client without it is never asked.
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema, type ElicitRequest, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/paths.js';
import type { FakeLlmServer } from '../helpers/fake-ollama-server.js';
import { ollamaEnv, tempProject } from './ask-harness.js';
import { BOOKING_SERVER, startBookingLlm } from './booking-harness.js';

describe('cortex mcp asking its client (elicitation)', () => {
  let llm: FakeLlmServer;
  let profile: string;
  let client: Client | undefined;

  beforeAll(async () => {
    llm = await startBookingLlm();
    profile = tempProject({ servers: BOOKING_SERVER }).profile;
  });
  afterEach(async () => {
    await client?.close();
    client = undefined;
  });
  afterAll(() => llm?.close());

  /** A client of `cortex mcp`; with `answer`, it declares elicitation and answers each request so. */
  async function connect(answer?: (request: ElicitRequest) => ElicitResult): Promise<Client> {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [join(PROJECT_ROOT, 'bin', 'cortex.js'), '--profile', profile, 'mcp'],
      env: ollamaEnv(llm.url) as Record<string, string>,
      stderr: 'ignore',
    });
    client = new Client({ name: 'cortex-test', version: '1.0.0' }, answer ? { capabilities: { elicitation: { form: {} } } } : {});
    if (answer) client.setRequestHandler(ElicitRequestSchema, (request) => answer(request));
    await client.connect(transport);
    return client;
  }

  const answerOf = async (c: Client, question: string) => {
    const result = await c.callTool({ name: 'ask', arguments: { question } });
    return (result.structuredContent as { answer: string }).answer;
  };

  it("passes a tool server's form to the client and the tool gets the client's answer", async () => {
    const asked: string[] = [];
    const c = await connect((request) => {
      asked.push(request.params.message);
      return { action: 'accept', content: { name: 'Ada', guests: 4 } };
    });
    expect(await answerOf(c, 'Book me a table')).toBe('booked for Ada, 4 guests');
    expect(asked).toEqual(['The tool server "booking" asks: Who is the table for?']);
  }, 60_000);

  it('asks the client before a tool that needs the user\'s yes, and runs it only when allowed', async () => {
    const asked: string[] = [];
    let allow = true;
    const c = await connect((request) => {
      asked.push(request.params.message);
      return { action: allow ? 'accept' : 'decline' };
    });
    expect(await answerOf(c, 'Cancel my booking')).toBe('booking cancelled');
    expect(asked).toEqual(['Cortex-R asks before running a tool: Allow booking.cancel_booking?\n  It may change or delete data.\n  Arguments: none']);
    allow = false;
    expect(await answerOf(c, 'Cancel my booking again')).toMatch(/^not done: .*the user declined it/);
    expect(asked).toHaveLength(2);
  }, 60_000);

  it('asks nothing of a client without the capability: the tool is refused, the form declined', async () => {
    const c = await connect();
    expect(await answerOf(c, 'Cancel my booking')).toContain('nobody can be asked');
    expect(await answerOf(c, 'Book me a table')).toBe('not booked (decline)');
  }, 60_000);
});

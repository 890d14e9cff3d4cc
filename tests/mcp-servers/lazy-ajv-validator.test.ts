// The validator our bundled servers use for elicitation answers (ajv loaded on first use) judges them as the SDK's own does.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ElicitRequestSchema, type ElicitRequestFormParams, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { AjvJsonSchemaValidator } from '../../mcp-servers/shared/lazy-ajv-validator.js';

const FORM: ElicitRequestFormParams = {
  mode: 'form',
  message: 'Who should get the report?',
  requestedSchema: {
    type: 'object',
    properties: {
      email: { type: 'string', format: 'email', title: 'Email' },
      copies: { type: 'integer', minimum: 1, maximum: 3 },
    },
    required: ['email'],
  },
};

/** What a server asking FORM gets when the person answers `content`: the accepted result, or the error's code and message. */
async function elicitThrough(server: Server, content: Record<string, string | number>): Promise<ElicitResult | { code: unknown; message: string }> {
  const client = new Client({ name: 'cortex-r-test', version: '0.0.0' }, { capabilities: { elicitation: { form: {} } } });
  client.setRequestHandler(ElicitRequestSchema, () => ({ action: 'accept', content }));
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(serverTransport), client.connect(clientTransport)]);
  try {
    return await server.elicitInput(FORM);
  } catch (err) {
    const { code, message } = err as { code: unknown; message: string };
    return { code, message };
  } finally {
    await client.close();
    await server.close();
  }
}

const serverWith = (jsonSchemaValidator?: AjvJsonSchemaValidator): Server =>
  new Server({ name: 'asker', version: '0.0.0' }, jsonSchemaValidator ? { jsonSchemaValidator } : {});

describe('AjvJsonSchemaValidator loaded on first use', () => {
  it.each([
    ['a valid answer', { email: 'ana@example.com', copies: 2 }],
    ['a malformed email', { email: 'not an address' }],
    ['a missing required field', { copies: 1 }],
    ['a number out of range', { email: 'ana@example.com', copies: 9 }],
  ])('treats %s exactly as the SDK default validator does', async (_case, content) => {
    const lazy = await elicitThrough(serverWith(new AjvJsonSchemaValidator()), content);
    const sdkDefault = await elicitThrough(serverWith(), content);
    expect(lazy).toEqual(sdkDefault);
  });

  it('accepts a valid answer and refuses a malformed one with the reason', async () => {
    expect(await elicitThrough(serverWith(new AjvJsonSchemaValidator()), { email: 'ana@example.com' })).toEqual({
      action: 'accept',
      content: { email: 'ana@example.com' },
    });
    const refused = await elicitThrough(serverWith(new AjvJsonSchemaValidator()), { email: 'not an address' });
    expect(refused).toMatchObject({ message: expect.stringMatching(/does not match requested schema: .*must match format "email"/) });
  });
});

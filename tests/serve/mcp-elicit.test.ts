// Questions during a `cortex mcp` call as input requests, and the client's answers read back.
import { describe, expect, it } from 'vitest';
import { answerFrom, clientAsking, inputRequestFor } from '../../src/serve/mcp-elicit.js';

describe('mcp-elicit', () => {
  it('names who asks in the message: Cortex-R before a tool, or the tool server', () => {
    expect(inputRequestFor({ server: 'Cortex-R', mode: 'form', message: 'Allow x?', fields: {}, required: [], approval: true })).toEqual({
      method: 'elicitation/create',
      params: { mode: 'form', message: 'Cortex-R asks before running a tool: Allow x?', requestedSchema: { type: 'object', properties: {}, required: [] } },
    });
    const form = inputRequestFor({ server: 'booking', mode: 'form', message: 'Who?', fields: { name: { type: 'string' } }, required: ['name'] });
    expect(form.params).toMatchObject({ message: 'The tool server "booking" asks: Who?', requestedSchema: { properties: { name: { type: 'string' } }, required: ['name'] } });
    const link = inputRequestFor({ server: 'bank', mode: 'url', message: 'Sign in', url: 'https://bank.example/login', elicitationId: 'e1' });
    expect(link.params).toMatchObject({ mode: 'url', message: 'The tool server "bank" asks: Sign in', url: 'https://bank.example/login' });
  });

  it("reads the client's answer, taking anything else than an elicitation result as cancelled", () => {
    expect(answerFrom({ action: 'accept', content: { name: 'Ada' } })).toEqual({ action: 'accept', content: { name: 'Ada' } });
    expect(answerFrom({ action: 'accept' })).toEqual({ action: 'accept' });
    expect(answerFrom({ action: 'decline' })).toEqual({ action: 'decline' });
    expect(answerFrom({ roots: [] })).toEqual({ action: 'cancel' });
    expect(answerFrom(undefined)).toEqual({ action: 'cancel' });
  });

  it('asks a client only as far as it declared', () => {
    expect(clientAsking(undefined)).toBe('none');
    expect(clientAsking({})).toBe('none');
    expect(clientAsking({ elicitation: {} })).toBe('form');
    expect(clientAsking({ elicitation: { form: {}, url: {} } })).toBe('form_and_url');
  });
});

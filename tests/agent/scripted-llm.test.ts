import { describe, expect, it } from 'vitest';
import { LlmRequestError } from '../../src/errors.js';
import { ScriptedLlm } from '../helpers/scripted-llm.js';

describe('ScriptedLlm', () => {
  it('replays turns in order and records every request', async () => {
    const llm = new ScriptedLlm({ turns: ['one', (request, index) => `${index}:${request.prompt}`] });
    expect((await llm.generate({ prompt: 'a' })).text).toBe('one');
    expect((await llm.generate({ prompt: 'b', jsonSchema: { type: 'object' } })).text).toBe('1:b');
    expect(llm.requests.map((r) => r.prompt)).toEqual(['a', 'b']);
    expect(llm.requests[1]!.jsonSchema).toEqual({ type: 'object' });
  });

  it('throws on a request nobody scripted, naming it', async () => {
    const llm = new ScriptedLlm({ turns: ['only'] });
    await llm.generate({ prompt: 'first' });
    await expect(llm.generate({ prompt: 'second question' })).rejects.toThrow(LlmRequestError);
    await expect(llm.generate({ prompt: 'third' })).rejects.toThrow(/no scripted turn left for request #3 \("third/);
    expect(llm.requests).toHaveLength(3);
  });

  it('reports the usage it was given, fixed or computed', async () => {
    const fixed = new ScriptedLlm({ turns: ['x'], usage: { promptTokens: 11, completionTokens: 7 }, model: 'tiny' });
    expect(await fixed.generate({ prompt: 'p' })).toMatchObject({ model: 'tiny', usage: { promptTokens: 11, completionTokens: 7 } });
    const computed = new ScriptedLlm({ turns: ['abc'], usage: (request, text) => ({ promptTokens: request.prompt.length, completionTokens: text.length }) });
    expect((await computed.generate({ prompt: 'hello' })).usage).toEqual({ promptTokens: 5, completionTokens: 3 });
  });

  it('passes a turn function failure on as the request failure', async () => {
    const llm = new ScriptedLlm({ turns: [() => { throw new Error('503 from the model'); }] });
    await expect(llm.generate({ prompt: 'p' })).rejects.toThrow('503 from the model');
  });

  it('refuses embed() unless embeddings were scripted', async () => {
    await expect(new ScriptedLlm().embed(['a'])).rejects.toThrow(/embed\(\) was not scripted/);
    const llm = new ScriptedLlm({ embed: (texts) => texts.map((t) => [t.length]) });
    expect((await llm.embed(['ab', 'c'])).vectors).toEqual([[2], [1]]);
  });
});

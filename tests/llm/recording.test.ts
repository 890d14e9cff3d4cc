// Record and replay of LLM exchanges: a recorded run's replies come back in order, with no LLM behind them.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LlmRequestError, UsageError } from '../../src/errors.js';
import { recordingLlm, replayLlm } from '../../src/llm/recording.js';
import { ScriptedLlm } from '../helpers/scripted-llm.js';

const tempFile = () => join(mkdtempSync(join(tmpdir(), 'cortex-recording-')), 'run.jsonl');

describe('recordingLlm', () => {
  it('writes a header and every exchange, without the abort signal, as JSON lines', async () => {
    const file = tempFile();
    const llm = recordingLlm(new ScriptedLlm({ turns: ['one', 'two'], model: 'm1' }), file);
    await llm.generate({ prompt: 'p1', jsonSchema: { type: 'object' }, signal: new AbortController().signal });
    await llm.generate({ prompt: 'p2', temperature: 0 });
    const lines = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({ format: 'cortex-llm-recording', version: 1, provider: 'scripted', model: 'm1' });
    expect(lines[1]).toMatchObject({ method: 'generate', request: { prompt: 'p1', jsonSchema: { type: 'object' } }, response: { text: 'one' } });
    expect(lines[1].request).not.toHaveProperty('signal');
    expect(lines[2]).toMatchObject({ request: { prompt: 'p2', temperature: 0 }, response: { text: 'two' } });
  });

  it('records request fields it does not know, so later additions (images…) are kept', async () => {
    const file = tempFile();
    const llm = recordingLlm(new ScriptedLlm({ turns: ['seen'] }), file);
    await llm.generate({ prompt: 'look', images: [{ mimeType: 'image/png', data: 'AAAA' }] } as never);
    expect(JSON.parse(readFileSync(file, 'utf8').split('\n')[1]!).request.images).toEqual([{ mimeType: 'image/png', data: 'AAAA' }]);
  });

  it('passes every other member of the client through', async () => {
    const inner = Object.assign(new ScriptedLlm({ model: 'm2' }), { describeImage: async (x: string) => `image ${x}` });
    const llm = recordingLlm(inner, tempFile()) as typeof inner;
    expect(llm.model).toBe('m2');
    expect(llm.provider).toBe('scripted');
    expect(await llm.describeImage('cat')).toBe('image cat');
  });

  it('records a failure and throws it on', async () => {
    const file = tempFile();
    const llm = recordingLlm(new ScriptedLlm({ turns: [] }), file);
    await expect(llm.generate({ prompt: 'p' })).rejects.toThrow(LlmRequestError);
    expect(JSON.parse(readFileSync(file, 'utf8').split('\n')[1]!)).toMatchObject({ method: 'generate', error: expect.stringContaining('no scripted turn') });
  });
});

describe('replayLlm', () => {
  it('answers with the recorded replies in order, and a recorded failure fails again', async () => {
    const file = tempFile();
    const recorder = recordingLlm(new ScriptedLlm({ turns: ['first', 'second'], model: 'qwen' }), file);
    await recorder.generate({ prompt: 'a' });
    await recorder.generate({ prompt: 'b' });
    await recorder.generate({ prompt: 'c' }).catch(() => undefined);
    const replay = replayLlm(file);
    expect(replay.model).toBe('qwen');
    expect((await replay.generate({ prompt: 'a' })).text).toBe('first');
    expect((await replay.generate({ prompt: 'b' })).text).toBe('second');
    await expect(replay.generate({ prompt: 'c' })).rejects.toThrow(/recorded failure/);
    await expect(replay.generate({ prompt: 'd' })).rejects.toThrow(/holds 3 generate replies and this run asked for more/);
  });

  it('refuses a file that is not a recording, naming the file and line', () => {
    const file = tempFile();
    writeFileSync(file, '{"hello": 1}\n');
    expect(() => replayLlm(file)).toThrow(UsageError);
    expect(() => replayLlm(file)).toThrow(/not a recording made by `cortex ask --record`/);
    writeFileSync(file, '{"format":"cortex-llm-recording","version":1,"provider":"p","model":"m"}\nnot json\n');
    expect(() => replayLlm(file)).toThrow(/run\.jsonl:2: not JSON/);
    expect(() => replayLlm(join(tmpdir(), 'no-such-recording.jsonl'))).toThrow(/cannot read the recording/);
  });
});

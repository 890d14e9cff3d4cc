import { describe, expect, it } from 'vitest';
import { MAX_INLINE_BINARY_CHARS, parseToolResult, resourceValue } from '../../src/sandbox/tool-result.js';

const text = (t: string, extra: Record<string, unknown> = {}) => ({ type: 'text', text: t, ...extra });
const base64Of = (bytes: number) => Buffer.alloc(bytes, 7).toString('base64');

describe('parseToolResult', () => {
  it('keeps the parsed value for text-only results', () => {
    expect(parseToolResult({ content: [text('{"result": 5}')] })).toBe(5);
    expect(parseToolResult({ content: [text('[1,2]')] })).toEqual([1, 2]);
    expect(parseToolResult({ content: [text('plain words')] })).toBe('plain words');
    expect(parseToolResult({ content: [text('line 1'), text('line 2')] })).toBe('line 1\nline 2');
    expect(parseToolResult({ content: [] })).toBe('');
  });

  it('prefers structured content over its text copy', () => {
    expect(parseToolResult({ content: [text('{"result": 5}')], structuredContent: { result: 5 } })).toBe(5);
    expect(parseToolResult({ content: [text('x')], structuredContent: { a: 1 } })).toEqual({ a: 1 });
  });

  it('gives mixed content as one object with each kind in its own list', () => {
    const value = parseToolResult({
      content: [
        text('see below'),
        { type: 'audio', data: base64Of(30), mimeType: 'audio/wav' },
        { type: 'resource', resource: { uri: 'file:///a.bin', mimeType: 'application/octet-stream', blob: base64Of(4) } },
        { type: 'resource_link', uri: 'file:///b.txt', name: 'b.txt', _meta: { x: 1 } },
        { type: 'hologram', depth: 3 },
      ],
      structuredContent: { result: { ok: true } },
    });
    expect(value).toEqual({
      text: 'see below',
      value: { ok: true },
      audio: [{ mimeType: 'audio/wav', bytes: 30, data: base64Of(30) }],
      resources: [{ uri: 'file:///a.bin', mimeType: 'application/octet-stream', bytes: 4, data: base64Of(4) }],
      links: [{ uri: 'file:///b.txt', name: 'b.txt' }],
      other: [{ type: 'hologram', depth: 3 }],
    });
  });

  it('caps the base64 handed over per result, keeping the size of what it leaves out', () => {
    const big = base64Of(Math.ceil((MAX_INLINE_BINARY_CHARS * 3) / 4) + 3);
    const small = base64Of(10);
    const value = parseToolResult({
      content: [
        { type: 'image', data: small, mimeType: 'image/png' },
        { type: 'image', data: big, mimeType: 'image/png' },
      ],
    }) as { images: Array<Record<string, unknown>> };
    expect(value.images[0]).toEqual({ mimeType: 'image/png', bytes: 10, data: small });
    expect(value.images[1]).toEqual({ mimeType: 'image/png', bytes: Buffer.from(big, 'base64').length, dataOmitted: true });
    expect(JSON.stringify(value).length).toBeLessThan(MAX_INLINE_BINARY_CHARS);
  });

  it('keeps annotated text parts with their annotations', () => {
    const annotations = { audience: ['user'], priority: 0.9 };
    expect(parseToolResult({ content: [text('note', { annotations })] })).toEqual({ text: 'note', texts: [{ text: 'note', annotations }] });
  });
});

describe('resourceValue', () => {
  it('gives one part as an object and several as an array', () => {
    expect(resourceValue([{ uri: 'u', mimeType: 'text/plain', text: 'hello' }])).toEqual({ uri: 'u', mimeType: 'text/plain', text: 'hello' });
    expect(resourceValue([{ uri: 'u', text: 'a' }, { uri: 'v', mimeType: 'application/json', blob: Buffer.from('{"k":1}').toString('base64') }])).toEqual([
      { uri: 'u', text: 'a' },
      { uri: 'v', mimeType: 'application/json', text: '{"k":1}' },
    ]);
  });
});

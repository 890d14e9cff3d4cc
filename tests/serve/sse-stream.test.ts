// SseStream: the frames it writes, and the bound on what a reader that never reads can make the server buffer.
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { SseStream } from '../../src/serve/sse-stream.js';

/** A response whose reader takes what it is given (collect) or never reads (stall: no write ever completes). */
function target(mode: 'collect' | 'stall') {
  const chunks: string[] = [];
  const heads: Array<[number, Record<string, string>]> = [];
  const writable = new Writable({
    highWaterMark: 1024,
    write(chunk: Buffer, _enc, done) {
      chunks.push(chunk.toString());
      if (mode === 'collect') done();
    },
  });
  return Object.assign(writable, {
    chunks,
    heads,
    writeHead(status: number, headers: Record<string, string>) {
      heads.push([status, headers]);
      return writable;
    },
  });
}

describe('SseStream', () => {
  it('sends the headers with the first event and one data line of JSON per event', () => {
    const res = target('collect');
    const stream = new SseStream(res as never);
    expect(stream.open).toBe(false);
    expect(stream.send('outcome', { type: 'outcome', detail: 'two\nlines' })).toBe(true);
    stream.send('result', { answer: '131' });
    stream.end();
    expect(res.heads).toEqual([[200, expect.objectContaining({ 'content-type': 'text/event-stream; charset=utf-8' })]]);
    expect(res.chunks.join('')).toBe('event: outcome\ndata: {"type":"outcome","detail":"two\\nlines"}\n\nevent: result\ndata: {"answer":"131"}\n\n');
    expect(stream.send('late', {})).toBe(false);
  });

  it('cuts a reader that stops reading once more than the bound is waiting, instead of buffering without end', () => {
    const res = target('stall');
    const stream = new SseStream(res as never, 10_000);
    const big = { text: 'x'.repeat(1_000) };
    let sent = 0;
    while (stream.send('tool_call', big) && sent < 1_000) sent++;
    expect(sent).toBeLessThan(11);
    expect(res.destroyed).toBe(true);
    expect(stream.closed).toBe(true);
    expect(stream.send('tool_call', big)).toBe(false);
  });
});

// LimitedStdioTransport: newline-delimited JSON-RPC; a message past the limit is answered with an error and dropped.
import { PassThrough } from 'node:stream';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { LimitedStdioTransport } from '../../src/serve/stdio-transport.js';

const LIMIT = 200;

async function open() {
  const input = new PassThrough();
  const output = new PassThrough();
  const transport = new LimitedStdioTransport(input, output, LIMIT);
  const received: JSONRPCMessage[] = [];
  const errors: string[] = [];
  let closed = false;
  transport.onmessage = (m) => received.push(m);
  transport.onerror = (e) => errors.push(e.message);
  transport.onclose = () => {
    closed = true;
  };
  await transport.start();
  const written = () => output.read()?.toString('utf8').trim().split('\n').map((l: string) => JSON.parse(l)) ?? [];
  return { input, transport, received, errors, written, closed: () => closed };
}

const ping = (id: number | string) => `${JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' })}\n`;

describe('LimitedStdioTransport', () => {
  it('reads messages split across chunks and several in one chunk', async () => {
    const t = await open();
    const two = ping(1) + ping(2);
    t.input.write(two.slice(0, 10));
    t.input.write(two.slice(10));
    expect(t.received).toEqual([{ jsonrpc: '2.0', id: 1, method: 'ping' }, { jsonrpc: '2.0', id: 2, method: 'ping' }]);
  });

  it('answers an oversized request by the id it wrote first or last, drops it, and reads the next message', async () => {
    const t = await open();
    const padding = 'x'.repeat(LIMIT * 3);
    t.input.write(`${JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { padding } })}\n`);
    t.input.write(`{"method":"tools/call","params":{"p":"${padding}","id":99},"jsonrpc":"2.0","id":"last"}\n`);
    t.input.write(ping(8));
    expect(t.written().map((m: { id: unknown; error: { code: number } }) => [m.id, m.error.code])).toEqual([[7, -32600], ['last', -32600]]);
    expect(t.received).toEqual([{ jsonrpc: '2.0', id: 8, method: 'ping' }]);
    expect(t.errors).toHaveLength(2);
    expect(t.closed()).toBe(false);
  });

  it('reports an oversized message without a findable id, and reports lines that are not JSON-RPC', async () => {
    const t = await open();
    t.input.write(`[${'1,'.repeat(LIMIT)}1]\n`);
    t.input.write('not json\n');
    expect(t.written()).toEqual([]);
    expect(t.errors).toHaveLength(2);
    // The end of the input closes the transport.
    await new Promise<void>((resolve) => {
      t.transport.onclose = resolve;
      t.input.end();
    });
  });
});

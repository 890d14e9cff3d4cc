// Every network failure mode is an error value on both fetch routes (plain and TLS), never a crash: local listeners only.
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pinnedLookup } from '../../src/net/http-request.js';
import { safeFetch, type SafeFetchOptions } from '../../src/net/safe-fetch.js';
import { WebFetchError } from '../../src/net/web-fetch-error.js';

const OPEN = { blockPrivateNetwork: false };
/** Deadline for the fetches that must time out; the fetch's own timer ends them, nothing here waits on a clock. */
const SHORT_TIMEOUT_MS = 300;

/** A TCP listener that does `onSocket` to every connection; closed after the suite. */
function listen(onSocket: (socket: Socket) => void): Promise<{ server: Server; port: number }> {
  const server = createServer(onSocket);
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, port: (server.address() as AddressInfo).port })));
}

/** A port on loopback that nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const { server, port } = await listen(() => undefined);
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

let resetter: { server: Server; port: number };
let silent: { server: Server; port: number };
let halfAnswer: { server: Server; port: number };
let garbage: { server: Server; port: number };
let refusedPort: number;
const held: Socket[] = [];

beforeAll(async () => {
  resetter = await listen((socket) => socket.once('data', () => socket.resetAndDestroy()));
  silent = await listen((socket) => held.push(socket));
  halfAnswer = await listen((socket) =>
    socket.once('data', () => {
      socket.write('HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 1000\r\n\r\nthe start of');
      setImmediate(() => socket.resetAndDestroy());
    }),
  );
  garbage = await listen((socket) => socket.once('data', () => socket.end('this is not TLS and not HTTP\r\n\r\n')));
  refusedPort = await closedPort();
});

afterAll(async () => {
  for (const socket of held) socket.destroy();
  await Promise.all([resetter, silent, halfAnswer, garbage].map(({ server }) => new Promise((resolve) => server.close(resolve))));
});

async function failure(url: string, options: Partial<SafeFetchOptions> = {}): Promise<WebFetchError> {
  try {
    await safeFetch(url, { policy: OPEN, ...options });
  } catch (err) {
    expect(err).toBeInstanceOf(WebFetchError);
    return err as WebFetchError;
  }
  throw new Error(`${url} was fetched, but should have failed`);
}

describe.each(['http', 'https'])('safeFetch over %s', (scheme) => {
  it('reports a host that does not resolve', async () => {
    const err = await failure(`${scheme}://nowhere.test/`, {
      resolveHost: () => Promise.reject(Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.test'), { code: 'ENOTFOUND' })),
    });
    expect(err.code).toBe('dns');
    expect(err.message).toContain('"nowhere.test" (ENOTFOUND)');
  });

  it('reports a refused connection', async () => {
    const err = await failure(`${scheme}://127.0.0.1:${refusedPort}/`);
    expect(err).toMatchObject({ code: 'network', message: expect.stringContaining('the connection was refused') });
  });

  it('reports a host with no route (a connect that fails at once) as an error, not a crash', async () => {
    // The kernel refuses a TCP connect to the broadcast address with ENETUNREACH before any packet is sent.
    const err = await failure(`${scheme}://no-route.test/`, { resolveHost: async () => [{ address: '255.255.255.255', family: 4 }] });
    expect(err).toMatchObject({ code: 'network', message: expect.stringContaining('the network is unreachable') });
  });

  it('reports a connection reset before the answer', async () => {
    const err = await failure(`${scheme}://127.0.0.1:${resetter.port}/`);
    expect(err).toMatchObject({ code: 'network', message: expect.stringMatching(/reset|socket hang up|disconnected/) });
  });

  it('stops at the deadline when the server never answers', async () => {
    const err = await failure(`${scheme}://127.0.0.1:${silent.port}/`, { timeoutMs: SHORT_TIMEOUT_MS });
    expect(err.code).toBe('timeout');
    expect(err.message).toContain('within 300 ms');
  });
});

describe('safeFetch, failures particular to one route', () => {
  it('reports a body cut off by a reset', async () => {
    const err = await failure(`http://127.0.0.1:${halfAnswer.port}/`);
    expect(err.code).toBe('network');
  });

  it('reports a TLS handshake with something that does not speak TLS', async () => {
    const err = await failure(`https://127.0.0.1:${garbage.port}/`);
    expect(err.code).toBe('network');
    expect(err.message).toMatch(/TLS|SSL|wrong version|packet length/i);
  });

  it('sends the URL host name for TLS (SNI), not the pinned address', async () => {
    let hello = '';
    const sni = await listen((socket) => socket.once('data', (d: Buffer) => { hello = d.toString('latin1'); socket.destroy(); }));
    try {
      await failure(`https://sni-name.test:${sni.port}/`, { resolveHost: async () => [{ address: '127.0.0.1', family: 4 }] });
      expect(hello).toContain('sni-name.test');
    } finally {
      await new Promise((resolve) => sni.server.close(resolve));
    }
  });
});

describe('pinnedLookup', () => {
  it('answers asynchronously, as dns.lookup does, so a connect failing at once finds its listeners attached', async () => {
    const lookup = pinnedLookup([{ address: '127.0.0.1', family: 4 }]);
    const answers: unknown[] = [];
    const answered = new Promise<void>((resolve) => lookup('a.test', {}, (err, address) => { answers.push(err ?? address); resolve(); }));
    expect(answers).toEqual([]);
    await answered;
    expect(answers).toEqual(['127.0.0.1']);
  });

  it('answers a family it does not have with ENOTFOUND, asynchronously too', async () => {
    const lookup = pinnedLookup([{ address: '127.0.0.1', family: 4 }]);
    let sync = true;
    const err = await new Promise<NodeJS.ErrnoException | null>((resolve) => { lookup('a.test', { family: 6 }, (e) => resolve(e)); sync = false; });
    expect(sync).toBe(false);
    expect(err?.code).toBe('ENOTFOUND');
  });

  it('gives every address of the wanted family when asked for all', async () => {
    const lookup = pinnedLookup([{ address: '127.0.0.1', family: 4 }, { address: '::1', family: 6 }, { address: '127.0.0.2', family: 4 }]);
    const all = await new Promise<unknown>((resolve) => lookup('a.test', { all: true, family: 4 }, (_e, list) => resolve(list)));
    expect(all).toEqual([{ address: '127.0.0.1', family: 4 }, { address: '127.0.0.2', family: 4 }]);
  });
});

// The default fetch: http(s) only, public addresses only unless allowed, redirects, size caps (after gunzip), timeouts.
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSafeFetch, FetchError } from '../../../src/rag/extract/index.js';

const routes: Record<string, (res: ServerResponse) => void> = {
  '/page': (res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<p>hello</p>');
  },
  '/hop1': (res) => {
    res.writeHead(302, { location: '/hop2' });
    res.end();
  },
  '/hop2': (res) => {
    res.writeHead(301, { location: '/page' });
    res.end();
  },
  '/loop': (res) => {
    res.writeHead(302, { location: '/loop' });
    res.end();
  },
  '/missing': (res) => {
    res.writeHead(404);
    res.end('not here');
  },
  '/declared-big': (res) => {
    res.writeHead(200, { 'content-length': '5000' });
    res.end('y'.repeat(5_000));
  },
  '/chunked-big': (res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    for (let i = 0; i < 10; i++) res.write('z'.repeat(500));
    res.end();
  },
  '/gzip': (res) => {
    res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' });
    res.end(gzipSync('compressed words'));
  },
  '/bomb': (res) => {
    res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' });
    res.end(gzipSync(Buffer.alloc(1_000_000)));
  },
  '/hang': (res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.write('partial');
  },
};

describe('createSafeFetch', () => {
  let server: Server;
  let base: string;
  let requests = 0;
  beforeAll(async () => {
    server = createServer((req, res) => {
      requests++;
      const route = routes[req.url ?? ''];
      if (route) route(res);
      else res.writeHead(500).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const local = createSafeFetch({ allowPrivateAddresses: true, maxBytes: 1_000, maxRedirects: 3, timeoutMs: 5_000 });

  it('returns the body and content type', async () => {
    const got = await local(`${base}/page`);
    expect(got.contentType).toBe('text/html; charset=utf-8');
    expect(Buffer.from(got.body).toString()).toBe('<p>hello</p>');
  });

  it('follows redirects up to the limit', async () => {
    expect(Buffer.from((await local(`${base}/hop1`)).body).toString()).toBe('<p>hello</p>');
    await expect(local(`${base}/loop`)).rejects.toThrow(/redirected more than 3 times/);
  });

  it('rejects HTTP errors with the status', async () => {
    await expect(local(`${base}/missing`)).rejects.toThrow(/answered HTTP 404/);
  });

  it('refuses bodies over the size cap, declared or streamed', async () => {
    await expect(local(`${base}/declared-big`)).rejects.toThrow(/larger than the 1000 B limit/);
    await expect(local(`${base}/chunked-big`)).rejects.toThrow(/larger than the 1000 B limit/);
    await expect(local(`${base}/page`, { maxBytes: 5 })).rejects.toThrow(/larger than the 5 B limit/);
  });

  it('decompresses gzip and applies the cap to the decompressed size', async () => {
    expect(Buffer.from((await local(`${base}/gzip`)).body).toString()).toBe('compressed words');
    await expect(local(`${base}/bomb`)).rejects.toThrow(/larger than the 1000 B limit/);
  });

  it('gives up at its timeout, and when the caller aborts', async () => {
    const quick = createSafeFetch({ allowPrivateAddresses: true, timeoutMs: 200 });
    await expect(quick(`${base}/hang`)).rejects.toThrow(/did not answer within 0.2 s/);
    const controller = new AbortController();
    const pending = local(`${base}/hang`, { signal: controller.signal });
    controller.abort();
    await expect(pending).rejects.toThrow(/cancelled/);
  });

  it('refuses other schemes', async () => {
    await expect(local('ftp://127.0.0.1/file')).rejects.toThrow(/Only http and https/);
    await expect(local('not a url')).rejects.toBeInstanceOf(FetchError);
  });

  it('refuses loopback and private addresses by default, by literal or by name, before connecting', async () => {
    const strict = createSafeFetch();
    const port = (server.address() as AddressInfo).port;
    const before = requests;
    await expect(strict(`${base}/page`)).rejects.toThrow(/private or local address \(127\.0\.0\.1\)/);
    await expect(strict(`http://localhost:${port}/page`)).rejects.toThrow(/resolves to a private or local address/);
    await expect(strict(`http://[::ffff:127.0.0.1]:${port}/page`)).rejects.toThrow(/private or local address/);
    await expect(strict('http://10.1.2.3/')).rejects.toThrow(/private or local address/);
    expect(requests).toBe(before);
  });

  it('refuses link-local and cloud metadata addresses even when private addresses are allowed', async () => {
    const permissive = createSafeFetch({ allowPrivateAddresses: true, timeoutMs: 5_000 });
    await expect(permissive('http://169.254.169.254/latest/meta-data/')).rejects.toThrow(/private or local address \(169\.254\.169\.254\).*metadata/);
    await expect(permissive('http://169.254.169.254/latest/meta-data/')).rejects.toBeInstanceOf(FetchError);
    // By name too: a host resolving to the metadata address is refused before any connection.
    const byName = createSafeFetch({ allowPrivateAddresses: true, resolveHost: () => Promise.resolve([{ address: '169.254.169.254', family: 4 }]) });
    await expect(byName('http://metadata.test/')).rejects.toThrow(/resolves to a private or local address \(169\.254\.169\.254\)/);
  });
});

// safeFetch against a local fixture server: deadlines, redirects, refused addresses, size cap, encodings.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { safeFetch, type HostResolver, type SafeFetchOptions } from '../../src/net/safe-fetch.js';
import { WebFetchError } from '../../src/net/web-fetch-error.js';
import { startFixtureServer, type FixtureServer } from '../fixtures/websearch/fixture-server.js';

let server: FixtureServer;
beforeAll(async () => {
  server = await startFixtureServer();
});
afterAll(async () => {
  await server.close();
});

/** A resolver for made-up names; it fails the test if asked for a name it does not know. */
function fakeDns(table: Record<string, string[]>, calls: string[] = []): HostResolver {
  return async (host) => {
    calls.push(host);
    const addresses = table[host];
    if (!addresses) throw Object.assign(new Error(`unexpected lookup of ${host}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
}

const OPEN: SafeFetchOptions = { policy: { blockPrivateNetwork: false } };

/** The WebFetchError a fetch fails with (fails the test if it succeeds or throws anything else). */
async function failure(url: string, options: SafeFetchOptions = OPEN): Promise<WebFetchError> {
  try {
    await safeFetch(url, options);
  } catch (err) {
    if (err instanceof WebFetchError) return err;
    throw err;
  }
  throw new Error(`${url} was fetched, but should have failed`);
}

describe('safeFetch', () => {
  it('fetches a page and reports its media type and charset', async () => {
    const page = await safeFetch(server.url('/eiffel-tower-article.html'), OPEN);
    expect(page).toMatchObject({ status: 200, mediaType: 'text/html', charset: 'utf-8', truncated: false });
    expect(page.bytes.toString('utf8')).toContain('Why the Eiffel Tower grows in summer');
  });

  it('POSTs a form as application/x-www-form-urlencoded', async () => {
    await safeFetch(server.searchUrl, { ...OPEN, method: 'POST', form: { q: 'a b&c', b: '' } });
    const request = server.requests.at(-1);
    expect(request).toMatchObject({ method: 'POST', path: '/html/', body: 'q=a+b%26c&b=' });
    expect(request?.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(request?.headers['user-agent']).toMatch(/^Mozilla\/5\.0/);
  });

  it('decompresses a gzip body', async () => {
    const page = await safeFetch(server.url('/gzip-article'), OPEN);
    expect(page.bytes.toString('utf8')).toContain('Does it lean?');
  });

  it('stops a server that never answers at the deadline', async () => {
    const err = await failure(server.url('/slow'), { ...OPEN, timeoutMs: 300 });
    expect(err.code).toBe('timeout');
    expect(err.message).toBe(`no complete answer from ${server.url('/slow')} within 300 ms (timed out)`);
  });

  it('stops a body that stalls halfway at the deadline', async () => {
    const err = await failure(server.url('/slow-body'), { ...OPEN, timeoutMs: 300 });
    expect(err.code).toBe('timeout');
  });

  it('gives up on a redirect loop after 5 redirects', async () => {
    const before = server.requests.length;
    const err = await failure(server.url('/loop'));
    expect(err.code).toBe('redirect_limit');
    expect(err.message).toMatch(/still redirected after 5 hops/);
    expect(server.requests.length - before).toBe(6);
  });

  it('follows 5 redirects but not 6', async () => {
    const page = await safeFetch(server.url('/hops/5'), OPEN);
    expect(page.url).toBe(server.url('/eiffel-tower-article.html'));
    expect((await failure(server.url('/hops/6'))).code).toBe('redirect_limit');
  });

  it('refuses a redirect to the cloud metadata address without connecting to it', async () => {
    const err = await failure(server.url('/to-metadata'));
    expect(err.code).toBe('blocked_address');
    expect(err.message).toBe(
      'refused to fetch http://169.254.169.254/latest/meta-data/: 169.254.169.254 is link-local, where cloud metadata services live',
    );
  });

  it('refuses a redirect to a non-http scheme', async () => {
    const err = await failure(server.url('/to-ftp'));
    expect(err.code).toBe('bad_url');
    expect(err.message).toContain('ftp:');
  });

  it.each(['file:///etc/passwd', 'ftp://example.org/', 'javascript:alert(1)', 'not a url', '//no-scheme.example/'])(
    'refuses the URL %s before any network access',
    async (url) => {
      expect((await failure(url, { ...OPEN, resolveHost: fakeDns({}) })).code).toBe('bad_url');
    },
  );

  it('refuses a host whose DNS answer includes a metadata address, even with private networks allowed', async () => {
    const resolveHost = fakeDns({ 'sneaky.test': ['93.184.215.14', '169.254.169.254'] });
    const err = await failure('http://sneaky.test/', { ...OPEN, resolveHost });
    expect(err.code).toBe('blocked_address');
    expect(err.message).toContain('sneaky.test resolves to 169.254.169.254');
  });

  it('refuses loopback when private networks are blocked, and says which setting did it', async () => {
    const err = await failure(server.url('/eiffel-tower-article.html'), { policy: { blockPrivateNetwork: true } });
    expect(err.code).toBe('blocked_address');
    expect(err.message).toMatch(/127\.0\.0\.1 is loopback \(private and local addresses are blocked by security\.block_private_network\)/);
  });

  it('refuses a name that resolves to loopback when private networks are blocked', async () => {
    const resolveHost = fakeDns({ 'rebind.test': ['127.0.0.1'] });
    const err = await failure('http://rebind.test/', { policy: { blockPrivateNetwork: true }, resolveHost });
    expect(err.message).toContain('rebind.test resolves to 127.0.0.1, which is loopback');
  });

  it('connects to the address it checked, resolving each host once per hop, never asking DNS again', async () => {
    // pinned.test exists only in the fake resolver: a connection that did its own lookup would fail with ENOTFOUND.
    const calls: string[] = [];
    const resolveHost = fakeDns({ 'pinned.test': ['127.0.0.1'] }, calls);
    const port = new URL(server.origin).port;
    const page = await safeFetch(`http://pinned.test:${port}/hops/2`, { ...OPEN, resolveHost });
    expect(page.url).toBe(`http://pinned.test:${port}/eiffel-tower-article.html`);
    expect(calls).toEqual(['pinned.test', 'pinned.test', 'pinned.test']);
    expect(server.requests.at(-1)?.headers.host).toBe(`pinned.test:${port}`);
  });

  it('reports a host that does not resolve', async () => {
    const err = await failure('http://nowhere.test/', { ...OPEN, resolveHost: fakeDns({}) });
    expect(err.code).toBe('dns');
    expect(err.message).toBe('cannot resolve the host "nowhere.test" (ENOTFOUND); check the URL');
  });

  it('reports a refused connection', async () => {
    const closed = await startFixtureServer();
    const url = closed.url('/');
    await closed.close();
    const err = await failure(url);
    expect(err.code).toBe('network');
    expect(err.message).toBe(`could not fetch ${url}: the connection was refused`);
  });

  it('turns an HTTP error status into an error naming it', async () => {
    const err = await failure(server.url('/missing'));
    expect(err.code).toBe('http_status');
    expect(err.message).toBe(`${server.url('/missing')} answered HTTP 404 Not Found`);
  });

  it('refuses a body that is not text', async () => {
    const err = await failure(server.url('/image.png'));
    expect(err.code).toBe('content_type');
    expect(err.message).toContain('is image/png, not a web page or text');
  });

  it('stops reading an endless body at the size cap and hangs up', async () => {
    const page = await safeFetch(server.url('/huge'), { ...OPEN, maxBodyBytes: 100_000 });
    expect(page.truncated).toBe(true);
    expect(page.bytes.length).toBe(100_000);
    await server.huge.done;
    expect(server.huge.clientClosed).toBe(true);
  });
});

// The websearch server's tools through a real SDK Client over InMemoryTransport, against a local fixture server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildWebsearchServer, type WebsearchServerOptions } from '../../mcp-servers/websearch/build-server.js';
import { readExample } from '../../mcp-servers/shared/example-meta.js';
import { runParseTask } from '../../mcp-servers/websearch/parse-task.js';
import { startFixtureServer, type FixtureServer } from '../fixtures/websearch/fixture-server.js';
import { connectInMemory, textOf, type InMemoryConnection } from './connect-in-memory.js';

let fixtures: FixtureServer;
let conn: InMemoryConnection;

/** A server on the fixtures; parsing runs in worker threads as in production (the built worker from dist/). */
async function connect(options: WebsearchServerOptions = {}): Promise<InMemoryConnection> {
  return connectInMemory(buildWebsearchServer({ searchUrl: fixtures.searchUrl, ...options }));
}

/** Parses in this thread: much faster than a worker per call, for tests that make dozens of calls. */
const inThreadParse: WebsearchServerOptions['parse'] = async (task) => runParseTask(task);

beforeAll(async () => {
  fixtures = await startFixtureServer();
  conn = await connect();
});
afterAll(async () => {
  await conn.close();
  await fixtures.close();
});

async function resultOf(c: InMemoryConnection, name: string, args: Record<string, unknown>): Promise<{ result: string; results?: unknown[] }> {
  const res = await c.call(name, args);
  expect(res.isError, `${name} failed: ${textOf(res)}`).toBeFalsy();
  expect(JSON.parse(textOf(res))).toEqual(res.structuredContent);
  return res.structuredContent as { result: string; results?: unknown[] };
}

async function errorOf(c: InMemoryConnection, name: string, args: Record<string, unknown>): Promise<string> {
  const res = await c.call(name, args);
  expect(res.isError, `${name} should have failed`).toBe(true);
  return textOf(res);
}

describe('websearch server listing', () => {
  it('lists the original tool names with described inputs, an outputSchema with result, and examples', async () => {
    const { tools } = await conn.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['download_raw_html_from_url', 'duckduckgo_search_results']);
    for (const tool of tools) {
      expect(tool.title, tool.name).toBeTruthy();
      expect(tool.outputSchema?.required, tool.name).toContain('result');
      for (const [key, prop] of Object.entries(tool.inputSchema.properties as Record<string, { description?: string }>)) {
        expect(prop.description, `${tool.name}.${key}`).toBeTruthy();
      }
      expect(readExample(tool._meta), tool.name).toBeDefined();
    }
  });

  it('publishes examples that pass against the configured endpoint', async () => {
    const { tools } = await conn.client.listTools();
    for (const tool of tools) {
      const example = readExample(tool._meta);
      const res = await conn.call(tool.name, example?.args ?? {});
      expect(res.isError, `${tool.name}: ${textOf(res)}`).toBeFalsy();
    }
  });
});

describe('duckduckgo_search_results', () => {
  it('POSTs the query and formats the results as the original did, with the redirect links decoded', async () => {
    const { result, results } = await resultOf(conn, 'duckduckgo_search_results', { query: '  eiffel   tower height ' });
    expect(fixtures.requests.at(-1)).toMatchObject({ method: 'POST', path: '/html/', body: 'q=eiffel+tower+height&b=&kl=' });
    expect(result.startsWith('Found 10 search results:\n\n1. Why the Eiffel Tower grows in summer — Fixture Science News\n')).toBe(true);
    expect(result).toContain(
      '2. Eiffel Tower - Wikipedia\n   URL: https://en.wikipedia.org/wiki/Eiffel_Tower\n   Summary: The Eiffel Tower is a wrought-iron lattice tower',
    );
    expect(result).toContain(`   URL: ${fixtures.url('/eiffel-tower-article.html')}\n`);
    expect(result).not.toContain('duckduckgo.com');
    expect(result).not.toContain('Skip The Line');
    expect(results).toHaveLength(10);
    expect(results?.[0]).toEqual({
      position: 1,
      title: 'Why the Eiffel Tower grows in summer — Fixture Science News',
      url: fixtures.url('/eiffel-tower-article.html'),
      snippet: 'Thermal expansion makes the iron tower up to 15 cm taller on hot days. Engineers explain how the 1889 structure moves.',
    });
  });

  it('returns max_results results', async () => {
    const { result, results } = await resultOf(conn, 'duckduckgo_search_results', { query: 'eiffel', max_results: 2 });
    expect(results).toHaveLength(2);
    expect(result).toMatch(/^Found 2 search results:/);
  });

  it('says so, without an error, when nothing was found', async () => {
    const { result, results } = await resultOf(conn, 'duckduckgo_search_results', { query: 'qwzxv plorbnik' });
    expect(result).toBe('No results were found for "qwzxv plorbnik". Try different or fewer words.');
    expect(results).toEqual([]);
  });

  it('reports the bot check as an error saying to wait', async () => {
    expect(await errorOf(conn, 'duckduckgo_search_results', { query: 'bot check' })).toMatch(/bot check \(a CAPTCHA\).*wait a few minutes/);
  });

  it('reports an endpoint that does not answer with a result page', async () => {
    expect(await errorOf(conn, 'duckduckgo_search_results', { query: 'not a search page' })).toContain(
      `the search endpoint ${fixtures.searchUrl} did not answer with a DuckDuckGo result page`,
    );
  });

  it('reports a network failure as an error naming the query', async () => {
    const down = await startFixtureServer();
    await down.close();
    const c = await connectInMemory(buildWebsearchServer({ searchUrl: down.searchUrl }));
    expect(await errorOf(c, 'duckduckgo_search_results', { query: 'eiffel' })).toBe(
      `search for "eiffel" failed: could not fetch ${down.searchUrl}: the connection was refused`,
    );
    await c.close();
  });

  it('refuses an empty query', async () => {
    expect(await errorOf(conn, 'duckduckgo_search_results', { query: '   ' })).toBe('the query is empty; give the words to search for');
  });

  it('refuses the 31st search in a minute with the time to wait, and allows it once the window moves', async () => {
    let now = 5_000_000;
    const c = await connect({ now: () => now, parse: inThreadParse });
    for (let i = 1; i <= 30; i++) {
      now += 1_000;
      const res = await c.call('duckduckgo_search_results', { query: `eiffel ${i}`, max_results: 1 });
      expect(res.isError, `search ${i}: ${textOf(res)}`).toBeFalsy();
    }
    const before = fixtures.requests.length;
    expect(await errorOf(c, 'duckduckgo_search_results', { query: 'eiffel 31' })).toBe(
      'rate limit reached: at most 30 searches per 60 s; try again in 31 s',
    );
    expect(fixtures.requests.length).toBe(before);
    now += 31_000;
    expect((await c.call('duckduckgo_search_results', { query: 'eiffel 31' })).isError).toBeFalsy();
    await c.close();
  });
});

describe('download_raw_html_from_url', () => {
  it('returns the readable text of a cluttered article, clutter left out', async () => {
    const { result } = await resultOf(conn, 'download_raw_html_from_url', { url: fixtures.url('/eiffel-tower-article.html') });
    expect(result.split('\n')[0]).toBe('Why the Eiffel Tower grows in summer — Fixture Science News');
    expect(result).toContain('its summit rises by as much as 15 centimetres.');
    expect(result).not.toMatch(/SHOULD_NOT_APPEAR/);
  });

  it('cuts a long page at 8,000 characters with a marker', async () => {
    const { result } = await resultOf(conn, 'download_raw_html_from_url', { url: fixtures.url('/long-article') });
    const [kept, marker] = result.split('\n… ');
    expect(kept?.length).toBeLessThanOrEqual(8_000);
    expect(marker).toMatch(/^\[content truncated: showing the first 8000 of \d+ characters\]$/);
  });

  it('reads a page only up to the size cap, and says the page was cut', async () => {
    const c = await connect({ maxBodyBytes: 50_000 });
    const { result } = await resultOf(c, 'download_raw_html_from_url', { url: fixtures.url('/huge') });
    expect(result).toMatch(/\[page cut: only its first 49 KB were read\]$/);
    await c.close();
  });

  it('decodes a page in its declared charset', async () => {
    const { result } = await resultOf(conn, 'download_raw_html_from_url', { url: fixtures.url('/latin1-recipe.html') });
    expect(result).toContain('Crème brûlée');
  });

  it('returns plain text with its lines kept', async () => {
    const { result } = await resultOf(conn, 'download_raw_html_from_url', { url: fixtures.url('/plain.txt') });
    expect(result).toBe('Line one.\nLine two.');
  });

  it('says a page built by JavaScript has no readable text', async () => {
    expect(await errorOf(conn, 'download_raw_html_from_url', { url: fixtures.url('/empty.html') })).toContain('has no readable text');
  });

  it('refuses the cloud metadata address, directly and through a redirect', async () => {
    expect(await errorOf(conn, 'download_raw_html_from_url', { url: 'http://169.254.169.254/latest/meta-data/' })).toMatch(/^refused to fetch/);
    // A redirect to another site is not followed: the plan must ask for that address, which the host judges (and refuses here).
    expect(await errorOf(conn, 'download_raw_html_from_url', { url: fixtures.url('/to-metadata') })).toMatch(/redirects to http:\/\/169\.254\.169\.254\/.*another site/);
    expect(await errorOf(conn, 'download_raw_html_from_url', { url: 'http://[fd00:ec2::254]/' })).toContain('the AWS IPv6 metadata service');
  });

  it('refuses 127.0.0.1 when private networks are blocked', async () => {
    const c = await connect({ blockPrivateNetwork: true });
    expect(await errorOf(c, 'download_raw_html_from_url', { url: fixtures.url('/eiffel-tower-article.html') })).toContain(
      '127.0.0.1 is loopback',
    );
    await c.close();
  });

  it('times out on a server that never answers', async () => {
    const c = await connect({ timeoutMs: 200 });
    expect(await errorOf(c, 'download_raw_html_from_url', { url: fixtures.url('/slow') })).toBe(
      `no complete answer from ${fixtures.url('/slow')} within 200 ms (timed out)`,
    );
    await c.close();
  });

  it('stops parsing a page nested too deep, and keeps serving', async () => {
    const c = await connect({ parseTimeoutMs: 500 });
    expect(await errorOf(c, 'download_raw_html_from_url', { url: fixtures.url('/nested') })).toBe(
      'the page took longer than 500 ms to read; it is too large or too deeply nested',
    );
    expect((await c.call('download_raw_html_from_url', { url: fixtures.url('/plain.txt') })).isError).toBeFalsy();
    await c.close();
  });

  it('refuses a non-http URL without using up the rate limit', async () => {
    const c = await connect({ fetchesPerMinute: 1, parse: inThreadParse });
    expect(await errorOf(c, 'download_raw_html_from_url', { url: 'file:///etc/passwd' })).toContain('only http:// and https://');
    expect((await c.call('download_raw_html_from_url', { url: fixtures.url('/plain.txt') })).isError).toBeFalsy();
    expect(await errorOf(c, 'download_raw_html_from_url', { url: fixtures.url('/plain.txt') })).toMatch(
      /^rate limit reached: at most 1 page downloads per 60 s; try again in \d+ s$/,
    );
    await c.close();
  });

  it('refuses the 21st download in a minute by default', async () => {
    let now = 0;
    const c = await connect({ now: () => now, parse: inThreadParse });
    for (let i = 0; i < 20; i++) expect((await c.call('download_raw_html_from_url', { url: fixtures.url('/plain.txt') })).isError).toBeFalsy();
    expect(await errorOf(c, 'download_raw_html_from_url', { url: fixtures.url('/plain.txt') })).toContain('at most 20 page downloads');
    now += 60_000;
    expect((await c.call('download_raw_html_from_url', { url: fixtures.url('/plain.txt') })).isError).toBeFalsy();
    await c.close();
  });
});

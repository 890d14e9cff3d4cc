// `.url` files and extractUrl(): the URL is read, fetched through the injected fetchUrl, and parsed like a file.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExtractor, type FetchUrl, type FetchUrlOptions, type FetchedBody, type WorkerExtractor } from '../../../src/rag/extract/index.js';
import { buildPdf } from './fixture-builders.js';

/** A FetchUrl that answers from a table and records every call. */
class FakeFetch {
  readonly calls: Array<{ url: string; options: FetchUrlOptions | undefined }> = [];
  constructor(private readonly answers: Record<string, FetchedBody | Error | 'hang'>) {}

  readonly fetch: FetchUrl = (url, options) => {
    this.calls.push({ url, options });
    const answer = this.answers[url];
    if (answer === undefined) return Promise.reject(new Error(`unscripted URL ${url}`));
    if (answer instanceof Error) return Promise.reject(answer);
    if (answer === 'hang') {
      return new Promise((_resolve, reject) => options?.signal?.addEventListener('abort', () => reject(new Error('aborted'))));
    }
    return Promise.resolve(answer);
  };
}

const PAGE = '<html><head><title>Tide Clock</title></head><body><article><h1>Tide Clock</h1><p>The tide clock at Pier 9 runs counter-clockwise and shows the hours until high water. It was restored in 2019 by volunteers from the harbour society.</p></article></body></html>';

describe('createExtractor: .url files', () => {
  let dir: string;
  let fake: FakeFetch;
  let extractor: WorkerExtractor;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'extract-url-'));
    fake = new FakeFetch({
      'https://example.test/tide': { contentType: 'text/html', body: PAGE },
      'https://example.test/paper.pdf': { contentType: 'application/pdf', body: buildPdf({ pages: [['Abstract of the paper'], ['Results section']] }) },
      'https://example.test/photo': { contentType: 'image/png', body: new Uint8Array([0x89, 0x50, 0x4e, 0x47]) },
      'https://example.test/down': new Error('https://example.test/down answered HTTP 503.'),
      'https://example.test/slow': 'hang',
      'https://example.test/big': { contentType: 'text/plain', body: 'x'.repeat(5_000) },
      'https://example.test/latin': { contentType: 'text/html; charset=windows-1252', body: '<html><head><meta charset="windows-1252"><title>Caf\u00e9</title></head><body><p>Cr\u00e8me br\u00fbl\u00e9e is served on Fridays at the harbour caf\u00e9, with a view of the lighthouse.</p></body></html>' },
    });
    await writeFile(join(dir, 'bare.url'), 'https://example.test/tide\n');
    await writeFile(join(dir, 'windows.url'), '[InternetShortcut]\r\nIconIndex=0\r\nURL=https://example.test/paper.pdf\r\n');
    await writeFile(join(dir, 'local.url'), 'file:///etc/passwd');
    await writeFile(join(dir, 'empty.url'), '\n\n');
    for (const name of ['photo', 'down', 'slow', 'big', 'latin']) await writeFile(join(dir, `${name}.url`), `https://example.test/${name}`);
    extractor = createExtractor({ documentsDir: dir, fetchUrl: fake.fetch });
  });
  afterAll(async () => {
    await extractor.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('fetches the URL on the first line and extracts the page as format url', async () => {
    const result = await extractor.extract('bare.url');
    expect(result).toMatchObject({ ok: true, format: 'url', title: 'Tide Clock' });
    expect(result.ok && result.pages[0]?.text).toContain('runs counter-clockwise');
  });

  it('reads the URL= line of a Windows shortcut and keeps the page numbers of a fetched PDF', async () => {
    const result = await extractor.extract('windows.url');
    expect(result.ok && result.pages).toEqual([
      { page: 1, text: 'Abstract of the paper' },
      { page: 2, text: 'Results section' },
    ]);
  });

  it('refuses non-http URLs without fetching them', async () => {
    const before = fake.calls.length;
    const result = await extractor.extract('local.url');
    expect(result).toMatchObject({ ok: false, reason: 'fetch_error' });
    expect(!result.ok && result.message).toMatch(/only http and https/);
    expect(await extractor.extract('empty.url')).toMatchObject({ ok: false, reason: 'fetch_error', message: 'empty.url holds no URL.' });
    expect(fake.calls.length).toBe(before);
  });

  it('reports a failed fetch as fetch_error with its message', async () => {
    expect(await extractor.extract('down.url')).toMatchObject({ ok: false, reason: 'fetch_error', message: 'https://example.test/down answered HTTP 503.' });
  });

  it('reports an unsupported content type as unsupported', async () => {
    const result = await extractor.extract('photo.url');
    expect(result).toMatchObject({ ok: false, reason: 'unsupported' });
    expect(!result.ok && result.message).toMatch(/image\/png/);
  });

  it('cuts a hanging fetch off at the file deadline and aborts it', async () => {
    const result = await extractor.extract('slow.url', { timeoutMs: 100 });
    expect(result).toMatchObject({ ok: false, reason: 'timeout' });
    expect(fake.calls.at(-1)?.options?.signal?.aborted).toBe(true);
  });

  it('refuses a fetched body larger than maxFileBytes', async () => {
    expect(await extractor.extract('big.url', { maxFileBytes: 1_000 })).toMatchObject({ ok: false, reason: 'too_large' });
    expect(fake.calls.at(-1)?.options?.maxBytes).toBe(1_000);
  });

  it('treats an already decoded body as UTF-8 whatever charset the page declares', async () => {
    const result = await extractor.extract('latin.url');
    expect(result.ok && result.pages[0]?.text).toContain('Crème brûlée is served on Fridays');
  });

  it('extractUrl() fetches and extracts a URL given directly, and refuses other schemes', async () => {
    expect(await extractor.extractUrl('https://example.test/tide')).toMatchObject({ ok: true, format: 'url', title: 'Tide Clock' });
    expect(await extractor.extractUrl('javascript:alert(1)')).toMatchObject({ ok: false, reason: 'fetch_error' });
  });
});

describe('createExtractor: default fetch', () => {
  let dir: string;
  let server: Server;
  let requests = 0;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'extract-url-default-'));
    server = createServer((_req, res) => {
      requests++;
      res.end('should never be served');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    await writeFile(join(dir, 'loopback.url'), `http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await rm(dir, { recursive: true, force: true });
  });

  it('refuses to fetch a private address unless allowed', async () => {
    const extractor = createExtractor({ documentsDir: dir });
    try {
      const result = await extractor.extract('loopback.url');
      expect(result).toMatchObject({ ok: false, reason: 'fetch_error' });
      expect(!result.ok && result.message).toMatch(/private or local address/);
      expect(requests).toBe(0);
    } finally {
      await extractor.close();
    }
  });
});

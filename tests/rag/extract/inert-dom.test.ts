// jsdom as the extractor configures it: no script runs and no resource is fetched, even with the page's own markup.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createInertDom } from '../../../src/rag/extract/inert-dom.js';

describe('createInertDom', () => {
  let server: Server;
  let origin: string;
  const requested: string[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      requested.push(req.url ?? '');
      res.end(req.url === '/s.js' ? "document.getElementById('lead').textContent = 'EXTERNAL RAN';" : '');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('runs no inline script, external script or event handler, and fetches nothing before load', async () => {
    const html = `<html><head>
      <link rel="stylesheet" href="${origin}/style.css"><script src="${origin}/s.js"></script>
      <script>document.getElementById('lead') && (document.getElementById('lead').textContent = 'INLINE RAN');</script>
      </head><body onload="document.getElementById('lead').textContent = 'ONLOAD RAN'">
      <p id="lead">original text</p>
      <img src="${origin}/pic.png" onerror="document.getElementById('lead').textContent = 'ONERROR RAN'">
      <iframe src="${origin}/frame.html"></iframe>
      <script>document.getElementById('lead').textContent = 'INLINE RAN';</script>
      </body></html>`;
    const dom = await createInertDom(html);
    try {
      // jsdom fires load once every resource it would load has loaded, so by then any fetch has been made.
      await new Promise<void>((resolve) => dom.window.addEventListener('load', () => resolve()));
      expect(dom.window.document.getElementById('lead')?.textContent).toBe('original text');
      expect(requested).toEqual([]);
    } finally {
      dom.window.close();
    }
  });
});

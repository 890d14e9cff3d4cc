import { readdirSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { isPagePath, PAGE_DIR, sendPageFile } from '../../src/serve/static-page.js';

/** Just enough of a ServerResponse to see what sendPageFile sends. */
function recorder() {
  const sent: { status?: number; headers?: Record<string, unknown>; body?: Buffer } = {};
  const res = {
    writeHead: (status: number, headers: Record<string, unknown>) => Object.assign(sent, { status, headers }),
    end: (body?: Buffer) => Object.assign(sent, { body }),
  } as unknown as ServerResponse;
  return { res, sent };
}

describe('the page files', () => {
  it('serves every file of the page folder, so a new module cannot be left out', () => {
    const files = readdirSync(PAGE_DIR).filter((f) => f !== 'index.html');
    expect(files.filter((f) => !isPagePath(`/${f}`))).toEqual([]);
    expect(isPagePath('/')).toBe(true);
    expect(isPagePath('/../package.json')).toBe(false);
    expect(isPagePath('/vendor/other.js')).toBe(false);
  });

  it('serves the markdown parser and the sanitiser as ES modules from their packages, under the strict CSP', async () => {
    for (const [path, marker] of [
      ['/vendor/marked.esm.js', 'export'],
      ['/vendor/purify.es.mjs', 'export'],
    ] as const) {
      const { res, sent } = recorder();
      await sendPageFile(res, path, false);
      expect(sent.status).toBe(200);
      expect(sent.headers!['content-type']).toBe('text/javascript; charset=utf-8');
      expect(sent.headers!['content-security-policy']).toContain("script-src 'self';");
      expect(sent.body!.toString()).toContain(marker);
    }
  });

  it('answers the favicon, also at /favicon.ico', async () => {
    const { res, sent } = recorder();
    await sendPageFile(res, '/favicon.ico', false);
    expect(sent.headers!['content-type']).toBe('image/svg+xml');
    expect(sent.body!.toString()).toMatch(/^<svg /);
  });
});

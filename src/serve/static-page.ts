// The web page's files (src/serve/page/), served as they are: no build step, a fixed list, nothing else on disk.
import { readFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../paths.js';

/** Where the page lives; the built and bundled CLI find it through the project root. */
export const PAGE_DIR = join(PROJECT_ROOT, 'src', 'serve', 'page');

/** URL path → file and content type. Only these are served. */
const PAGE_FILES: Record<string, [file: string, type: string]> = {
  '/': ['index.html', 'text/html; charset=utf-8'],
  '/index.html': ['index.html', 'text/html; charset=utf-8'],
  '/app.js': ['app.js', 'text/javascript; charset=utf-8'],
  '/style.css': ['style.css', 'text/css; charset=utf-8'],
};

/** Page scripts and styles come from this server only; model text is never markup. */
const PAGE_HEADERS = {
  'content-security-policy': "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-cache',
};

/** True when `path` is one of the page's files. */
export function isPagePath(path: string): boolean {
  return Object.hasOwn(PAGE_FILES, path);
}

/** Sends one of the page's files (GET or HEAD). */
export async function sendPageFile(res: ServerResponse, path: string, head: boolean): Promise<void> {
  const [file, type] = PAGE_FILES[path]!;
  const body = await readFile(join(PAGE_DIR, file));
  res.writeHead(200, { 'content-type': type, 'content-length': body.length, ...PAGE_HEADERS });
  res.end(head ? undefined : body);
}

// The web page's files (src/serve/page/ and two browser libraries from node_modules), served as they are: no build step, a fixed list, nothing else on disk.
import { readFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { PROJECT_ROOT } from '../paths.js';

/** Where the page lives; the built and bundled CLI find it through the project root. */
export const PAGE_DIR = join(PROJECT_ROOT, 'src', 'serve', 'page');

const HTML = 'text/html; charset=utf-8';
const JS = 'text/javascript; charset=utf-8';
const CSS = 'text/css; charset=utf-8';
const SVG = 'image/svg+xml';

const resolvePackage = createRequire(join(PROJECT_ROOT, 'package.json')).resolve;

/**
 * The browser builds (ES modules) of the markdown parser and the sanitiser, found where Node finds the packages,
 * so an installed Cortex-R serves the copies npm put beside it. Resolved lazily: a missing package is a 500 for
 * that file, not a server that cannot start.
 */
const VENDOR_FILES: Record<string, () => string> = {
  // marked's only export is its ES module build.
  '/vendor/marked.esm.js': () => resolvePackage('marked'),
  // DOMPurify exports its UMD file by path; the ES module build sits beside it.
  '/vendor/purify.es.mjs': () => join(dirname(resolvePackage('dompurify/dist/purify.js')), 'purify.es.mjs'),
};

/** URL path → file in PAGE_DIR and content type. Only these (and VENDOR_FILES) are served. */
const PAGE_FILES: Record<string, [file: string, type: string]> = {
  '/': ['index.html', HTML],
  '/index.html': ['index.html', HTML],
  '/app.js': ['app.js', JS],
  '/api.js': ['api.js', JS],
  '/markdown.js': ['markdown.js', JS],
  '/turn.js': ['turn.js', JS],
  '/live-steps.js': ['live-steps.js', JS],
  '/history.js': ['history.js', JS],
  '/sources.js': ['sources.js', JS],
  '/elicitation-form.js': ['elicitation-form.js', JS],
  '/sidebar.js': ['sidebar.js', JS],
  '/uploads.js': ['uploads.js', JS],
  '/dom.js': ['dom.js', JS],
  '/folded-text.js': ['folded-text.js', JS],
  '/style.css': ['style.css', CSS],
  '/favicon.svg': ['favicon.svg', SVG],
  // Browsers ask for /favicon.ico on their own; an SVG answers it as well.
  '/favicon.ico': ['favicon.svg', SVG],
};

/** Page scripts and styles come from this server only; model text is sanitised before it becomes markup. */
const PAGE_HEADERS = {
  'content-security-policy': "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-cache',
};

/** True when `path` is one of the page's files. */
export function isPagePath(path: string): boolean {
  return Object.hasOwn(PAGE_FILES, path) || Object.hasOwn(VENDOR_FILES, path);
}

/** Sends one of the page's files (GET or HEAD). */
export async function sendPageFile(res: ServerResponse, path: string, head: boolean): Promise<void> {
  const [file, type] = Object.hasOwn(VENDOR_FILES, path) ? [VENDOR_FILES[path]!(), JS] : [join(PAGE_DIR, PAGE_FILES[path]![0]), PAGE_FILES[path]![1]];
  const body = await readFile(file);
  res.writeHead(200, { 'content-type': type, 'content-length': body.length, ...PAGE_HEADERS });
  res.end(head ? undefined : body);
}

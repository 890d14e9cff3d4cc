// Test helper: an Extractor for .md/.txt/.html files inside one folder, recording what it extracted and failing on demand.
import { lstat, readFile, realpath } from 'node:fs/promises';
import { extname, isAbsolute, relative, resolve } from 'node:path';
import type { ExtractionResult, Extractor } from '../../src/rag/types.js';

/** A hand-written fake of part A's extractor: same contract, no worker, three text formats. */
export class FakeExtractor implements Extractor {
  /** Paths (relative to the folder, / separated) passed to extract(), in order. */
  readonly calls: string[] = [];
  /** Relative paths whose extraction fails with parse_error. */
  readonly broken = new Set<string>();
  closed = false;
  /** What reads images, as the real extractor reports it; the fake never reads any. */
  imageReader: string | undefined = undefined;

  constructor(readonly documentsDir: string) {}

  async extract(path: string): Promise<ExtractionResult> {
    const root = await realpath(this.documentsDir);
    const abs = isAbsolute(path) ? path : resolve(this.documentsDir, path);
    const rel = relative(this.documentsDir, abs).split('\\').join('/');
    this.calls.push(rel);
    let real: string;
    try {
      real = await realpath(abs);
    } catch {
      return { ok: false, reason: 'parse_error', message: `${path} does not exist` };
    }
    if (relative(root, real).startsWith('..') || !(await lstat(abs)).isFile()) {
      return { ok: false, reason: 'unsafe_path', message: `${path} is outside the documents folder or not a regular file` };
    }
    if (this.broken.has(rel)) return { ok: false, reason: 'parse_error', message: `${rel} is broken` };
    const ext = extname(abs).slice(1).toLowerCase();
    if (!['md', 'txt', 'html'].includes(ext)) return { ok: false, reason: 'unsupported', message: `.${ext} files are not supported` };
    const raw = await readFile(abs, 'utf8');
    const text = ext === 'html' ? raw.replace(/<[^>]*>/g, ' ').replace(/&amp;/g, '&').replace(/&lt;/g, '<').replace(/&gt;/g, '>') : raw;
    if (!text.trim()) return { ok: false, reason: 'no_text', message: `${rel} holds no text` };
    // A form feed separates pages, so tests can make "paged" documents without PDFs.
    const pages = text.split('\f').map((pageText, i) => ({ page: i + 1, text: pageText }));
    return { ok: true, format: ext === 'txt' && pages.length > 1 ? 'pdf' : ext, title: null, pages, warnings: [] };
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}

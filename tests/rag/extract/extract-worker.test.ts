// The parse worker: reused while healthy, killed at a file's deadline, replaced after a crash or an out-of-memory death.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtPath } from '../../../src/paths.js';
import { createExtractor, type WorkerExtractor } from '../../../src/rag/extract/index.js';

/** How long the child process of the exit test may live; it exits within a few seconds when nothing holds it. */
const CHILD_EXIT_CEILING_MS = 15_000;

/** `blocks` side-by-side chains of `depth` nested divs: within the article-detection bounds, but slow for Readability. */
function nestedDivs(depth: number, blocks: number): string {
  const chain = '<div>x'.repeat(depth) + '</div>'.repeat(depth);
  return `<html><body>${chain.repeat(blocks)}</body></html>`;
}

describe('createExtractor: worker lifecycle', () => {
  let dir: string;
  let extractor: WorkerExtractor;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'extract-worker-'));
    await writeFile(join(dir, 'page.html'), '<html><head><title>Ferry times</title></head><body><p>The first ferry leaves at 07:10.</p></body></html>');
    await writeFile(join(dir, 'other.html'), '<html><body><h1>Tolls</h1><p>Bridge tolls rise in May.</p></body></html>');
    await writeFile(join(dir, 'slow.html'), nestedDivs(60, 60));
    await writeFile(join(dir, 'deep.html'), nestedDivs(5_000, 1));
    await writeFile(join(dir, 'note.txt'), 'short note');
    // ~8 MB of JSON: a million small objects need far more than a 32 MB heap once parsed and pretty-printed.
    await writeFile(join(dir, 'huge.json'), `[${'{"a":1},'.repeat(1_000_000)}{}]`);
    extractor = createExtractor({ documentsDir: dir });
  });
  afterAll(async () => {
    await extractor.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('reuses one worker thread across files', async () => {
    expect(await extractor.extract('page.html')).toMatchObject({ ok: true, title: 'Ferry times' });
    const first = extractor.workerThreadId;
    expect(first).toBeDefined();
    expect(await extractor.extract('other.html')).toMatchObject({ ok: true });
    expect(extractor.workerThreadId).toBe(first);
  });

  it('replaces a worker once it has parsed its share of files with a library; plain text files do not count', async () => {
    const capped = createExtractor({ documentsDir: dir, workerMaxParserFiles: 2 });
    try {
      expect(await capped.extract('note.txt')).toMatchObject({ ok: true });
      const first = capped.workerThreadId;
      for (let i = 0; i < 4; i++) expect(await capped.extract('note.txt')).toMatchObject({ ok: true });
      expect(await capped.extract('page.html')).toMatchObject({ ok: true });
      expect(capped.workerThreadId).toBe(first);
      expect(await capped.extract('other.html')).toMatchObject({ ok: true });
      expect(capped.workerThreadId).toBeUndefined();
      expect(await capped.extract('note.txt')).toMatchObject({ ok: true });
      expect(capped.workerThreadId).toBeDefined();
      expect(capped.workerThreadId).not.toBe(first);
    } finally {
      await capped.close();
    }
  });

  it('stops a pathological page at its time limit, and the next file extracts on a fresh worker', async () => {
    expect(await extractor.extract('page.html')).toMatchObject({ ok: true });
    const before = extractor.workerThreadId;
    const result = await extractor.extract('slow.html', { timeoutMs: 300 });
    expect(result).toMatchObject({ ok: false, reason: 'timeout' });
    expect(!result.ok && result.message).toMatch(/slow\.html took longer than the 300 ms limit/);
    expect(extractor.workerThreadId).toBeUndefined();
    const next = await extractor.extract('other.html');
    expect(next.ok && next.pages[0]?.text).toContain('Bridge tolls rise in May.');
    expect(extractor.workerThreadId).toBeDefined();
    expect(extractor.workerThreadId).not.toBe(before);
  });

  it('takes the plain text of a page nested too deeply for article detection', async () => {
    const result = await extractor.extract('deep.html');
    expect(result.ok && result.warnings[0]).toMatch(/nested 5,?002 levels deep/);
    expect(result.ok && result.pages[0]?.text.split('\n\n')).toHaveLength(5_000);
  });

  it('serves concurrent calls one after another, each with its own result', async () => {
    const results = await Promise.all(['note.txt', 'page.html', 'note.txt', 'missing.txt'].map((f) => extractor.extract(f)));
    expect(results.map((r) => (r.ok ? r.pages[0]?.text : r.reason))).toEqual(['short note', 'The first ferry leaves at 07:10.', 'short note', 'parse_error']);
  });

  it('reports a file that exhausts the worker heap as too_large and replaces the worker', async () => {
    const small = createExtractor({ documentsDir: dir, workerHeapMb: 32 });
    try {
      expect(await small.extract('note.txt')).toMatchObject({ ok: true });
      const before = small.workerThreadId;
      const result = await small.extract('huge.json');
      expect(result).toMatchObject({ ok: false, reason: 'too_large' });
      expect(!result.ok && result.message).toMatch(/more than 32 MB of memory/);
      expect(await small.extract('note.txt')).toMatchObject({ ok: true });
      expect(small.workerThreadId).not.toBe(before);
    } finally {
      await small.close();
    }
  });

  it('reports a worker that cannot start as parse_error instead of throwing', async () => {
    const broken = createExtractor({ documentsDir: dir, workerPath: join(dir, 'no-such-worker.js') });
    try {
      const result = await broken.extract('note.txt');
      expect(result).toMatchObject({ ok: false, reason: 'parse_error' });
      expect(!result.ok && result.message).toMatch(/parser crashed/);
    } finally {
      await broken.close();
    }
  });

  it('answers calls made after close() with a result, not a throw', async () => {
    const closing = createExtractor({ documentsDir: dir });
    expect(await closing.extract('note.txt')).toMatchObject({ ok: true });
    await closing.close();
    expect(closing.workerThreadId).toBeUndefined();
    expect(await closing.extract('note.txt')).toMatchObject({ ok: false, message: 'The extractor was closed.' });
  });

  it('lets a process that never calls close() exit, and writes nothing to its stdout', async () => {
    const entry = builtPath('src/rag/extract/index.js');
    const script = `const { createExtractor } = await import(${JSON.stringify(entry)});
      const extractor = createExtractor({ documentsDir: ${JSON.stringify(dir)} });
      const results = [await extractor.extract('page.html'), await extractor.extract('note.txt')];
      process.stdout.write(results.map((r) => r.ok).join(','));`;
    const { code, stdout } = await new Promise<{ code: number | null; stdout: string }>((resolve) => {
      // The kill timer is only a safety ceiling: a child kept alive by the worker must fail the test, not outlive it.
      const child = execFile(process.execPath, ['--input-type=module', '-e', script], { timeout: CHILD_EXIT_CEILING_MS }, (err, out) =>
        resolve({ code: err ? ((err.code as number | undefined) ?? -1) : 0, stdout: out }),
      );
      child.stdin?.end();
    });
    expect(code).toBe(0);
    expect(stdout).toBe('true,true');
  }, CHILD_EXIT_CEILING_MS + 5_000);
});

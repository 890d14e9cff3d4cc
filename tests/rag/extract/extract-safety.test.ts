// Only regular files inside the documents folder are read: symlinks, ../, pipes, sockets, /proc and directories are refused.
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rename, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExtractor, type WorkerExtractor } from '../../../src/rag/extract/index.js';
import { readResolved, resolveSafely } from '../../../src/rag/extract/read-safely.js';
import type { ExtractionResult } from '../../../src/rag/types.js';

describe('createExtractor: path safety', () => {
  let base: string;
  let docs: string;
  let extractor: WorkerExtractor;
  let socketServer: Server;

  beforeAll(async () => {
    base = await mkdtemp(join(tmpdir(), 'extract-safety-'));
    docs = join(base, 'documents');
    await mkdir(join(docs, 'sub'), { recursive: true });
    await mkdir(join(base, 'outside'));
    await writeFile(join(base, 'outside', 'secret.txt'), 'TOP SECRET outside the folder');
    await writeFile(join(base, 'documents-2.txt'), 'sibling folder with a common prefix');
    await writeFile(join(docs, 'sub', 'inside.txt'), 'a file inside the folder');
    await symlink(join(base, 'outside', 'secret.txt'), join(docs, 'escape.txt'));
    await symlink(join(base, 'outside'), join(docs, 'linked-dir'));
    await symlink(join(docs, 'sub', 'inside.txt'), join(docs, 'alias.txt'));
    await batchFixtures();
    execFileSync('mkfifo', [join(docs, 'pipe.txt')]);
    socketServer = createServer();
    await new Promise<void>((resolve) => socketServer.listen(join(docs, 'socket.txt'), resolve));
    extractor = createExtractor({ documentsDir: docs });
  });
  afterAll(async () => {
    await extractor.close();
    await new Promise<void>((resolve) => socketServer.close(() => resolve()));
    await rm(base, { recursive: true, force: true });
  });

  const refused = { ok: false, reason: 'unsafe_path' };

  /**
   * Files for batches, which resolve each folder once for all their files: a real folder `batch/real`, and
   * `batch/linked` and `batch/other/real`, symlinks to a folder outside holding a file of the same name.
   */
  async function batchFixtures(): Promise<void> {
    await mkdir(join(docs, 'batch', 'real'), { recursive: true });
    await mkdir(join(docs, 'batch', 'other'));
    await mkdir(join(base, 'outside-real'));
    await writeFile(join(docs, 'batch', 'real', 'note.txt'), 'a note inside the folder');
    await writeFile(join(docs, 'batch', 'other', 'target.txt'), 'a target inside the folder');
    await writeFile(join(base, 'outside-real', 'note.txt'), 'TOP SECRET note outside the folder');
    await symlink(join(base, 'outside-real'), join(docs, 'batch', 'linked'));
    await symlink(join(base, 'outside-real'), join(docs, 'batch', 'other', 'real'));
    await symlink(join(base, 'outside', 'secret.txt'), join(docs, 'batch', 'real', 'escape.txt'));
    await symlink(join(docs, 'batch', 'other', 'target.txt'), join(docs, 'batch', 'real', 'alias.txt'));
  }

  /** Extracts `paths` in one worker message (all queued at once), so they share one batch's resolved folders. */
  async function extractInOneBatch(paths: string[]): Promise<ExtractionResult[]> {
    const before = extractor.workerMessages;
    const results = await Promise.all(paths.map((path) => extractor.extract(path)));
    expect(extractor.workerMessages - before).toBe(1);
    return results;
  }

  const throughSymlink = (name: string) => `${name} was not read: it resolves (through a symlink) to a place outside the documents folder.`;

  it.each([
    ['a file whose folder is a symlink leading outside, after a file of a real folder', 'batch/linked/note.txt'],
    ['a path through a symlinked folder named like a real folder resolved before', 'batch/other/real/note.txt'],
    ['a file symlink leading outside, in a folder resolved before', 'batch/real/escape.txt'],
  ])('refuses, in a batch, %s', async (_, path) => {
    const [inside, outside] = await extractInOneBatch(['batch/real/note.txt', path]);
    expect(inside?.ok && inside.pages[0]?.text).toBe('a note inside the folder');
    expect(outside).toMatchObject({ ...refused, message: throughSymlink(basename(path)) });
  });

  it('follows, in a batch, a file symlink that stays inside the folder, in a folder resolved before', async () => {
    const [inside, alias] = await extractInOneBatch(['batch/real/note.txt', 'batch/real/alias.txt']);
    expect(inside?.ok && inside.pages[0]?.text).toBe('a note inside the folder');
    expect(alias?.ok && alias.pages[0]?.text).toBe('a target inside the folder');
  });

  it('refuses a symlink to a file outside the folder', async () => {
    const result = await extractor.extract('escape.txt');
    expect(result).toMatchObject(refused);
    expect(!result.ok && result.message).toBe('escape.txt was not read: it resolves (through a symlink) to a place outside the documents folder.');
  });

  it('refuses a path through a symlinked directory that leads outside', async () => {
    const result = await extractor.extract('linked-dir/secret.txt');
    expect(result).toMatchObject(refused);
    expect(!result.ok && result.message).toMatch(/through a symlink/);
  });

  it('refuses ../ paths and absolute paths outside the folder, including a sibling with the same prefix', async () => {
    expect(await extractor.extract('../outside/secret.txt')).toMatchObject({ ...refused, message: 'secret.txt was not read: it is outside the documents folder.' });
    expect(await extractor.extract('sub/../../outside/secret.txt')).toMatchObject(refused);
    expect(await extractor.extract(join(base, 'outside', 'secret.txt'))).toMatchObject(refused);
    expect(await extractor.extract(`${docs}-2.txt`)).toMatchObject(refused);
  });

  it('refuses /proc files', async () => {
    expect(await extractor.extract('/proc/self/status')).toMatchObject(refused);
    expect(await extractor.extract('/proc/self/environ')).toMatchObject(refused);
  });

  it('refuses a named pipe without blocking on it', async () => {
    const result = await extractor.extract('pipe.txt');
    expect(result).toMatchObject(refused);
    expect(!result.ok && result.message).toMatch(/named pipe/);
  });

  it('refuses a socket and a directory', async () => {
    expect(await extractor.extract('socket.txt')).toMatchObject(refused);
    const dir = await extractor.extract('sub');
    expect(dir).toMatchObject(refused);
    expect(!dir.ok && dir.message).toMatch(/a directory/);
  });

  it('follows a symlink that stays inside the folder', async () => {
    const result = await extractor.extract('alias.txt');
    expect(result.ok && result.pages[0]?.text).toBe('a file inside the folder');
  });

  it('refuses a file larger than maxFileBytes as too_large', async () => {
    const result = await extractor.extract('sub/inside.txt', { maxFileBytes: 10 });
    expect(result).toMatchObject({ ok: false, reason: 'too_large' });
    expect(!result.ok && result.message).toMatch(/larger than the 10 B limit/);
  });

  it('reports a missing file as parse_error naming it', async () => {
    const result = await extractor.extract('nope.txt');
    expect(result).toMatchObject({ ok: false, reason: 'parse_error' });
    expect(!result.ok && result.message).toMatch(/nope\.txt does not exist/);
  });

  it('refuses to read a file that was replaced after its path was checked', async () => {
    const checked = resolveSafely(docs, 'sub/inside.txt');
    if (!checked.ok) throw new Error(checked.message);
    // Same path, different inode: what a swap between the check and the open looks like.
    await writeFile(join(docs, 'sub', 'new.txt'), 'swapped content');
    await rename(join(docs, 'sub', 'new.txt'), join(docs, 'sub', 'inside.txt'));
    expect((await stat(join(docs, 'sub', 'inside.txt'))).ino).not.toBe(checked.stats.ino);
    const read = readResolved(checked, 1_000);
    expect(read).toMatchObject(refused);
    expect(!read.ok && read.message).toMatch(/replaced/);
  });

  it('refuses to read through a descriptor that points outside the folder after the path was checked', async () => {
    const checked = resolveSafely(docs, 'alias.txt');
    if (!checked.ok) throw new Error(checked.message);
    // What a directory swapped for a symlink between the check and the open looks like from the descriptor:
    // the opened file's real location is not under the folder the check was made against.
    const read = readResolved({ ...checked, rootReal: join(base, 'outside') }, 1_000);
    expect(read).toMatchObject(refused);
    expect(!read.ok && read.message).toMatch(/moved outside the documents folder while being opened/);
  });
});

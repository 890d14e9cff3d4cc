// The index lock with real faiss files: one indexer at a time, and a lock left by a process that is gone taken over.
import { spawnSync } from 'node:child_process';
import { stat, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLexicalEmbedder } from '../../src/rag/embed/lexical-embedder.js';
import { IndexLockedError } from '../../src/rag/errors.js';
import { indexDocuments, type IndexDocumentsOptions } from '../../src/rag/index/index-documents.js';
import { acquireIndexLock, INDEX_LOCK_FILE } from '../../src/rag/index/index-lock.js';
import type { FakeExtractor } from './fake-extractor.js';
import { makeSampleDocuments } from './sample-documents.js';
import type { TempFolders } from './temp-folders.js';

let folders: TempFolders;
let extractor: FakeExtractor;
const embedder = createLexicalEmbedder({ dimension: 256 });

beforeEach(async () => {
  ({ folders, extractor } = await makeSampleDocuments());
});

afterEach(async () => {
  await folders.remove();
});

function run(options: Partial<IndexDocumentsOptions> = {}) {
  return indexDocuments({ documentsDir: folders.documentsDir, indexDir: folders.indexDir, embedder, extractor, ...options });
}

describe('the index lock', () => {
  it('keeps a second indexer out while the first holds it, and lets it in afterwards', async () => {
    const lock = await acquireIndexLock(folders.indexDir);
    await expect(run()).rejects.toBeInstanceOf(IndexLockedError);
    await expect(run()).rejects.toThrow(/being updated by another process \(pid \d+ .*this process/);
    await lock.release();
    expect((await run()).added).toBe(3);
  });

  it('keeps a concurrent indexer out while a run is in progress', async () => {
    let second: Promise<unknown> | undefined;
    await run({
      onProgress: (event) => {
        if (event.phase === 'scanned') second = run().then(() => 'ran', (err: unknown) => err);
      },
    });
    expect(await second).toBeInstanceOf(IndexLockedError);
  });

  it('takes over a lock left by a process that is gone', async () => {
    const dead = spawnSync(process.execPath, ['-e', '']).pid;
    await run();
    await writeFile(join(folders.indexDir, INDEX_LOCK_FILE), JSON.stringify({ pid: dead, host: hostname(), token: 'old', started_at: 'then' }));
    expect((await run()).skipped).toBe(3);
    await expect(stat(join(folders.indexDir, INDEX_LOCK_FILE))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('takes over a lock with our pid that this process never took (an earlier process with the same pid)', async () => {
    await run();
    await writeFile(join(folders.indexDir, INDEX_LOCK_FILE), JSON.stringify({ pid: process.pid, host: hostname(), token: 'earlier', started_at: 'then' }));
    expect((await run()).skipped).toBe(3);
  });

  it('respects a fresh unreadable lock (another process mid-write)', async () => {
    await run();
    await writeFile(join(folders.indexDir, INDEX_LOCK_FILE), '');
    await expect(run()).rejects.toBeInstanceOf(IndexLockedError);
  });
});

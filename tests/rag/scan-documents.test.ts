// The documents scan: its order, sizes and refusals, now that stats run in one pool across the whole walk.
import { closeSync, openSync } from 'node:fs';
import { mkdir, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { scanDocuments } from '../../src/rag/index/scan-documents.js';
import { makeTempFolders, type TempFolders } from './temp-folders.js';

let folders: TempFolders;

beforeEach(async () => {
  folders = await makeTempFolders();
});

afterEach(async () => {
  await folders.remove();
});

describe('scanDocuments', () => {
  it('lists each folder sorted, its subfolders before its own files, whatever order the stats finish in', async () => {
    for (const rel of ['z.md', 'a.md', 'B.md', 'b/2.txt', 'b/1.txt', 'b/c/deep.txt', 'a/x.md', 'a/b/y.md', 'a/b/a.md', 'zz/only.md']) {
      await folders.write(rel, `text of ${rel}`);
    }
    const { files, refused, warnings } = await scanDocuments(folders.documentsDir);
    expect(files.map((f) => f.rel)).toEqual(['a/b/a.md', 'a/b/y.md', 'a/x.md', 'b/c/deep.txt', 'b/1.txt', 'b/2.txt', 'zz/only.md', 'B.md', 'a.md', 'z.md']);
    expect(files.find((f) => f.rel === 'b/c/deep.txt')).toMatchObject({ abs: join(folders.documentsDir, 'b', 'c', 'deep.txt'), size: 'text of b/c/deep.txt'.length });
    expect(refused).toEqual([]);
    expect(warnings).toEqual([]);
  });

  it('refuses links in walk order, skips the excluded folder and throws when the folder itself is missing', async () => {
    await folders.write('b/keep.md', 'kept');
    await folders.write('index/index.json', '{}');
    await mkdir(join(folders.documentsDir, 'a'));
    await symlink('/etc/hostname', join(folders.documentsDir, 'z-link.md'));
    await symlink('/etc/hostname', join(folders.documentsDir, 'a', 'link.md'));
    const { files, refused } = await scanDocuments(folders.documentsDir, { exclude: [join(folders.documentsDir, 'index')] });
    expect(files.map((f) => f.rel)).toEqual(['b/keep.md']);
    expect(refused).toEqual([
      { file: 'a/link.md', reason: 'symbolic link, not followed' },
      { file: 'z-link.md', reason: 'symbolic link, not followed' },
    ]);
    await expect(scanDocuments(join(folders.documentsDir, 'missing'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('lists a folder holding 150,000 files (more than one call can take as arguments)', async () => {
    const count = 150_000;
    // Empty files, made synchronously: the quickest way to a folder this big.
    for (let i = 0; i < count; i++) closeSync(openSync(join(folders.documentsDir, `${String(i).padStart(6, '0')}.txt`), 'w'));
    const { files, warnings } = await scanDocuments(folders.documentsDir);
    expect(files).toHaveLength(count);
    expect(files[count - 1]?.rel).toBe('149999.txt');
    expect(warnings).toEqual([]);
  }, 120_000);
});

// Test helper: a fresh documents folder and index folder under the OS temp dir, removed after the test.
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export interface TempFolders {
  root: string;
  documentsDir: string;
  indexDir: string;
  /** Writes a file under the documents folder (creating subfolders). */
  write(rel: string, text: string): Promise<string>;
  remove(): Promise<void>;
}

export async function makeTempFolders(): Promise<TempFolders> {
  const root = await mkdtemp(join(tmpdir(), 'cortex-rag-'));
  const documentsDir = join(root, 'documents');
  const indexDir = join(root, 'faiss_index');
  await mkdir(documentsDir);
  return {
    root,
    documentsDir,
    indexDir,
    async write(rel, text) {
      const path = join(documentsDir, rel);
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, text);
      return path;
    },
    remove: () => rm(root, { recursive: true, force: true }),
  };
}

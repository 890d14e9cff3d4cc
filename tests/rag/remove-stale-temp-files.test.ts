// Temp files left by an interrupted index save are removed when the indexer next starts, and nothing else is touched.
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLexicalEmbedder } from '../../src/rag/embed/lexical-embedder.js';
import { writeFileAtomic } from '../../src/atomic-write.js';
import { indexDocuments, type IndexProgress } from '../../src/rag/index/index-documents.js';
import { removeStaleTempFiles } from '../../src/rag/index/remove-stale-temp-files.js';
import { runCli } from '../cli/run-cli.js';
import { tempProject } from '../e2e/ask-harness.js';
import { FakeExtractor } from './fake-extractor.js';
import { makeTempFolders, type TempFolders } from './temp-folders.js';

let folders: TempFolders;
beforeEach(async () => {
  folders = await makeTempFolders();
  await folders.write('oxygen.txt', 'Oxygen is a chemical element with symbol O and atomic number 8.');
});
afterEach(async () => {
  await folders.remove();
});

/** Names a writer killed between write and rename leaves, one per index file. */
const LEFTOVERS = ['index.bin.cortex-tmp-4242-0a1b2c3d', 'metadata.json.cortex-tmp-4242-deadbeef', 'doc_index_cache.json.cortex-tmp-77-00ff00ff'];

describe('removeStaleTempFiles', () => {
  it('removes only our temp files, and nothing from a missing folder', async () => {
    mkdirSync(folders.indexDir);
    for (const name of [...LEFTOVERS, 'index.bin', 'notes.tmp']) writeFileSync(join(folders.indexDir, name), 'x');
    mkdirSync(join(folders.indexDir, 'sub.cortex-tmp-1-2'));
    expect((await removeStaleTempFiles(folders.indexDir)).sort()).toEqual([...LEFTOVERS].sort());
    expect(readdirSync(folders.indexDir).sort()).toEqual(['index.bin', 'notes.tmp', 'sub.cortex-tmp-1-2']);
    expect(await removeStaleTempFiles(join(folders.root, 'none'))).toEqual([]);
  });

  it('recognises the names writeFileAtomic gives its temp files', async () => {
    mkdirSync(folders.indexDir);
    // A write that dies before its rename: simulated by a target whose rename fails (it is a folder).
    mkdirSync(join(folders.indexDir, 'target'));
    mkdirSync(join(folders.indexDir, 'target', 'inside'));
    await expect(writeFileAtomic(join(folders.indexDir, 'target'), 'data')).rejects.toThrow();
    expect(readdirSync(folders.indexDir)).toEqual(['target']);
  });
});

describe('indexDocuments after an interrupted save', () => {
  it('cleans the leftovers at start, says so, and indexes as usual', async () => {
    const embedder = createLexicalEmbedder({ dimension: 64 });
    const extractor = new FakeExtractor(folders.documentsDir);
    await indexDocuments({ documentsDir: folders.documentsDir, indexDir: folders.indexDir, embedder, extractor });
    for (const name of LEFTOVERS) writeFileSync(join(folders.indexDir, name), 'half a file');
    const messages: string[] = [];
    const onProgress = (e: IndexProgress) => void (e.phase === 'message' && messages.push(e.message));
    const summary = await indexDocuments({ documentsDir: folders.documentsDir, indexDir: folders.indexDir, embedder, extractor, onProgress });
    expect(summary.skipped).toBe(1);
    expect(messages).toContain(`removed 3 temp files left in ${folders.indexDir} by an interrupted save`);
    expect(readdirSync(folders.indexDir).filter((n) => n.includes('.cortex-tmp-'))).toEqual([]);
  });
});

describe('cortex index after an interrupted save (end to end)', () => {
  it('removes the temp files a killed save left, and indexes as usual', async () => {
    const { root, profile, documentsDir } = tempProject();
    mkdirSync(documentsDir);
    writeFileSync(join(documentsDir, 'rivers.txt'), 'The river has three bridges.\n');
    const indexDir = join(root, 'faiss_index');
    mkdirSync(indexDir);
    for (const name of LEFTOVERS) writeFileSync(join(indexDir, name), 'half a file');
    const run = await runCli(['--profile', profile, 'index']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/1 added/);
    expect(run.stderr).toContain('removed 3 temp files');
    expect(readdirSync(indexDir).filter((n) => n.includes('.cortex-tmp-'))).toEqual([]);
  });
});

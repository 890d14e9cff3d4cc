// Structural chunking runs in the extractor's worker when asked, giving exactly the chunks the host would make.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chunkStructural } from '../../src/rag/chunk/structural-chunker.js';
import { createExtractor, type WorkerExtractor } from '../../src/rag/extract/index.js';
import { HOSTILE_DOCUMENTS } from '../fixtures/hostile-documents.js';

describe('chunking inside the extractor worker', () => {
  let folder: string;
  let extractor: WorkerExtractor;
  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'cortex-chunk-worker-'));
    await writeFile(join(folder, 'valves.md'), `# Valves\n\n${Array.from({ length: 80 }, (_, i) => `Valve ${i} opens at ${i} bar.`).join(' ')}\n`);
    await writeFile(join(folder, 'parens.txt'), HOSTILE_DOCUMENTS['parens.txt']!());
    extractor = createExtractor({ documentsDir: folder });
  });
  afterAll(async () => {
    await extractor.close();
    await rm(folder, { recursive: true, force: true });
  });

  it.each(['valves.md', 'parens.txt'])('returns the structural chunks of %s instead of its pages', async (name) => {
    const result = await extractor.extract(join(folder, name), { structuralChunks: { maxChars: 300, overlapChars: 50 } });
    const plain = await extractor.extract(join(folder, name));
    expect(result.ok && plain.ok).toBe(true);
    if (!result.ok || !plain.ok) return;
    expect(result.chunks).toEqual(chunkStructural(plain.pages, { maxChars: 300, overlapChars: 50 }));
    expect(result.chunks!.length).toBeGreaterThan(1);
    expect(result.pages).toEqual([]);
  });

  it('returns no chunks unless asked', async () => {
    const result = await extractor.extract(join(folder, 'valves.md'));
    expect(result.ok && result.chunks).toBeUndefined();
  });
});

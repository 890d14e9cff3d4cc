// The caption cache file: captions survive a restart, a damaged file is started afresh, and two writers' captions merge.
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CAPTION_CACHE_FILE, openCaptionCache } from '../../../src/rag/vision/caption-cache.js';
import { makeTempFolders, type TempFolders } from '../temp-folders.js';

const A = 'a'.repeat(64);
const B = 'b'.repeat(64);
let folders: TempFolders;
beforeEach(async () => {
  folders = await makeTempFolders();
});
afterEach(async () => {
  await folders.remove();
});

describe('openCaptionCache', () => {
  it('keeps captions by captioner and image hash across openings', async () => {
    const cache = await openCaptionCache(folders.indexDir);
    cache.set('ollama:llava:7b', A, 'A bar chart.');
    await cache.save();
    const again = await openCaptionCache(folders.indexDir);
    expect(again.get('ollama:llava:7b', A)).toBe('A bar chart.');
    expect(again.get('tesseract', A)).toBeUndefined();
  });

  it('starts afresh from a damaged file and replaces it on the next save', async () => {
    await mkdir(folders.indexDir, { recursive: true });
    await writeFile(join(folders.indexDir, CAPTION_CACHE_FILE), '{"format": "cortex-r-image-captions", "captions": [tr');
    const cache = await openCaptionCache(folders.indexDir);
    expect(cache.get('tesseract', A)).toBeUndefined();
    cache.set('tesseract', A, 'Invoice 4471');
    await cache.save();
    expect(JSON.parse(await readFile(join(folders.indexDir, CAPTION_CACHE_FILE), 'utf8'))).toEqual({
      format: 'cortex-r-image-captions',
      version: 1,
      captions: { tesseract: { [A]: 'Invoice 4471' } },
    });
  });

  it('merges what another process saved meanwhile instead of overwriting it', async () => {
    const first = await openCaptionCache(folders.indexDir);
    const second = await openCaptionCache(folders.indexDir);
    first.set('tesseract', A, 'first');
    second.set('tesseract', B, 'second');
    await first.save();
    await second.save();
    const merged = await openCaptionCache(folders.indexDir);
    expect([merged.get('tesseract', A), merged.get('tesseract', B)]).toEqual(['first', 'second']);
  });
});

// Captions already paid for, by captioner and image SHA-256, in faiss_index/image_captions.json (written atomically).
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { writeFileAtomic } from '../../atomic-write.js';

/** The cache file inside the index folder. */
export const CAPTION_CACHE_FILE = 'image_captions.json';
/** Captions kept; past it the oldest go (each is at most MAX_CAPTION_CHARS, so the file stays bounded). */
export const MAX_CACHED_CAPTIONS = 50_000;

const CacheFileSchema = z.object({
  format: z.literal('cortex-r-image-captions'),
  version: z.literal(1),
  /** captioner id → image SHA-256 → caption. */
  captions: z.record(z.string(), z.record(z.string().regex(/^[0-9a-f]{64}$/u), z.string().min(1))),
});
type CacheFile = z.infer<typeof CacheFileSchema>;

/** Captions by (captioner, image hash). Only good captions are put in: a failed or empty one is asked again next time. */
export interface CaptionCache {
  get(captioner: string, sha256: string): string | undefined;
  set(captioner: string, sha256: string, caption: string): void;
  /** Writes new captions (merged with what another process may have written meanwhile); a no-op when nothing is new. */
  save(): Promise<void>;
}

/** Opens the cache in `indexDir` (created on the first save). A missing or unreadable file is an empty cache. */
export async function openCaptionCache(indexDir: string): Promise<CaptionCache> {
  const path = join(indexDir, CAPTION_CACHE_FILE);
  const captions = (await readCacheFile(path)).captions;
  const added: Array<[string, string, string]> = [];
  return {
    get: (captioner, sha256) => captions[captioner]?.[sha256],
    set(captioner, sha256, caption) {
      (captions[captioner] ??= {})[sha256] = caption;
      added.push([captioner, sha256, caption]);
    },
    async save() {
      if (added.length === 0) return;
      const merged = (await readCacheFile(path)).captions;
      for (const [captioner, sha256, caption] of added.splice(0)) (merged[captioner] ??= {})[sha256] = caption;
      trim(merged);
      await mkdir(indexDir, { recursive: true });
      const file: CacheFile = { format: 'cortex-r-image-captions', version: 1, captions: merged };
      await writeFileAtomic(path, JSON.stringify(file));
    },
  };
}

async function readCacheFile(path: string): Promise<CacheFile> {
  try {
    const parsed = CacheFileSchema.safeParse(JSON.parse(await readFile(path, 'utf8')));
    if (parsed.success) return parsed.data;
  } catch {
    // Missing or not JSON: start empty; the next save replaces it.
  }
  return { format: 'cortex-r-image-captions', version: 1, captions: {} };
}

/** Drops the oldest captions (insertion order) past MAX_CACHED_CAPTIONS. */
function trim(captions: CacheFile['captions']): void {
  let total = Object.values(captions).reduce((sum, byHash) => sum + Object.keys(byHash).length, 0);
  for (const byHash of Object.values(captions)) {
    for (const key of Object.keys(byHash)) {
      if (total <= MAX_CACHED_CAPTIONS) return;
      delete byHash[key];
      total--;
    }
  }
}

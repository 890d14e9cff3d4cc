// Host side: captions a file's images (cache first, then the captioner, within the file's captioning budget) and puts the text where each image stood.
import { errorMessage } from '../../errors.js';
import { placeholderPattern, type FoundImage } from '../extract/image-placeholder.js';
import type { ExtractedPage } from '../types.js';
import type { CaptionCache } from './caption-cache.js';
import type { ImageCaptioner } from './image-captioner.js';
import { MAX_CAPTION_CHARS, MAX_CAPTION_FAILURES_IN_A_ROW } from './image-limits.js';

export interface CaptionImagesOptions {
  pages: ExtractedPage[];
  images: FoundImage[];
  /** The nonce of the placeholders in `pages`. */
  nonce: string;
  /** File name, for warnings. */
  name: string;
  captioner: ImageCaptioner;
  cache?: CaptionCache;
  /** performance.now() past which no captioner call starts and a running one is aborted. */
  deadline: number;
}

export interface CaptionedPages {
  pages: ExtractedPage[];
  warnings: string[];
}

/**
 * Replaces each image placeholder with its text: a figure becomes its own paragraph `[Image: caption]`, a scanned
 * page or an image file becomes the transcription itself. Captions come from the cache, else from the captioner,
 * one image at a time in document order. A caption that fails, times out or is empty leaves nothing in the text
 * and is not cached; one too long is cut at MAX_CAPTION_CHARS, used, and not cached. Images left when the deadline
 * passes, or after MAX_CAPTION_FAILURES_IN_A_ROW failures in a row, are skipped. Each kind of problem is one
 * warning. Never throws.
 */
export async function captionImages({ pages, images, nonce, name, captioner, cache, deadline }: CaptionImagesOptions): Promise<CaptionedPages> {
  const texts = new Map<number, string>();
  const failures: string[] = [];
  let empty = 0;
  let cut = 0;
  let late = 0;
  let failedInARow = 0;
  let givenUp = 0;
  for (const found of images) {
    const cached = cache?.get(captioner.id, found.image.sha256);
    if (cached !== undefined) {
      texts.set(found.n, cached);
      continue;
    }
    const remaining = deadline - performance.now();
    if (remaining <= 0) {
      late++;
      continue;
    }
    if (failedInARow >= MAX_CAPTION_FAILURES_IN_A_ROW) {
      givenUp++;
      continue;
    }
    let raw: string;
    try {
      raw = await captioner.caption(found.image, { signal: AbortSignal.timeout(Math.ceil(remaining)) });
    } catch (err) {
      if (deadline - performance.now() <= 0) late++;
      else failures.push(`${where(found)}: ${errorMessage(err)}`);
      failedInARow++;
      continue;
    }
    failedInARow = 0;
    const text = typeof raw === 'string' ? raw.replace(/\r\n?/g, '\n').trim() : '';
    if (!text) {
      empty++;
      continue;
    }
    if (text.length > MAX_CAPTION_CHARS) {
      cut++;
      texts.set(found.n, text.slice(0, MAX_CAPTION_CHARS));
      continue;
    }
    texts.set(found.n, text);
    cache?.set(captioner.id, found.image.sha256, text);
  }

  const kinds = new Map(images.map((found) => [found.n, found.kind]));
  const pattern = placeholderPattern(nonce);
  const out = pages.map((page) => ({
    page: page.page,
    text: page.text.replace(pattern, (_whole, n: string) => {
      const text = texts.get(Number(n));
      if (!text) return '';
      return kinds.get(Number(n)) === 'figure' ? `\n\n[Image: ${text}]\n\n` : text;
    }),
  }));

  const warnings: string[] = [];
  const by = captioner.id;
  if (failures.length) warnings.push(`${failures.length} image(s) of ${name} could not be captioned by ${by} (${failures.slice(0, 2).join('; ')}${failures.length > 2 ? '; …' : ''}).`);
  if (empty) warnings.push(`${by} found no text in ${empty} image(s) of ${name}.`);
  if (cut) warnings.push(`${by} answered more than ${MAX_CAPTION_CHARS.toLocaleString('en-US')} characters for ${cut} image(s) of ${name}; the caption was cut.`);
  if (givenUp) warnings.push(`${givenUp} more image(s) of ${name} were not sent to ${by} after ${MAX_CAPTION_FAILURES_IN_A_ROW} failures in a row.`);
  if (late) warnings.push(`${late} image(s) of ${name} were not captioned: the time for captioning one file ran out.`);
  return { pages: out, warnings };
}

function where(found: FoundImage): string {
  if (found.kind === 'file') return 'the image';
  return found.kind === 'scan' ? `scanned page ${found.page}` : `an image on page ${found.page}`;
}

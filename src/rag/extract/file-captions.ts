// Captions a parsed file's images within the settings' time budget, then finishes its text again.
import { errorMessage } from '../../errors.js';
import type { ExtractionLimits, ExtractionResult } from '../types.js';
import type { CaptionCache } from '../vision/caption-cache.js';
import { captionImages } from '../vision/caption-images.js';
import { CAPTION_BUDGET_PER_FILE_MS } from '../vision/image-limits.js';
import type { ImageCaptionSettings } from './extractor-options.js';
import type { FoundImage } from './image-placeholder.js';
import { finishResult } from './parsed.js';

/**
 * Captions the images the worker found (on the calling thread: captioners wait on a model or a process, not the CPU)
 * within the settings' budget, then finishes the text again (placeholders replaced, empty pages dropped, cap).
 */
export async function captionFile({ result, images, nonce, name, limits, settings, cache: opening }: {
  result: Extract<ExtractionResult, { ok: true }>;
  images: FoundImage[];
  nonce: string;
  name: string;
  limits: ExtractionLimits;
  settings: ImageCaptionSettings;
  cache: Promise<CaptionCache | undefined>;
}): Promise<ExtractionResult> {
  const cache = await opening;
  const deadline = performance.now() + (settings.budgetMs ?? CAPTION_BUDGET_PER_FILE_MS);
  const captioned = await captionImages({ pages: result.pages, images, nonce, name, captioner: settings.captioner, cache, deadline });
  const warnings = [...result.warnings, ...captioned.warnings];
  try {
    await cache?.save();
  } catch (err) {
    warnings.push(`The image caption cache could not be saved (${errorMessage(err)}); captions will be asked again.`);
  }
  const finished = finishResult(result.format, { ok: true, title: result.title, pages: captioned.pages, warnings }, name, limits.maxTextChars);
  if (!finished.ok && finished.reason === 'no_text' && captioned.warnings.length > 0) {
    return { ok: false, reason: 'no_text', message: captioned.warnings.join(' ') };
  }
  return finished;
}

// The captioner seam: turns one prepared image into text (a vision model's caption, or Tesseract's OCR).
import { CortexError } from '../../errors.js';
import type { PreparedImage } from './prepared-image.js';

/** Describes or transcribes images. Implementations: createVisionCaptioner (an LLM), createTesseractCaptioner. */
export interface ImageCaptioner {
  /** Names the captioner in the cache and in messages, e.g. `ollama:llava:7b`, `tesseract`. */
  readonly id: string;
  /**
   * The image's text or description, '' when there is none (OCR of a photo). Throws CaptionError (or an LLM
   * error) when the captioner failed; `signal` aborts it (the file's captioning deadline).
   */
  caption(image: PreparedImage, options: { signal: AbortSignal }): Promise<string>;
}

/** A captioner failed on one image (timeout, crash, unusable answer). */
export class CaptionError extends CortexError {
  constructor(
    readonly captioner: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super('caption', `${captioner}: ${message}`, options);
  }
}

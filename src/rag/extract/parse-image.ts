// An image file dropped into documents/ (png, jpg, webp, gif, bmp): one page whose text is the image's caption.
import type { ImageCollector } from './image-collector.js';
import { parseError, type ParseOutcome } from './parsed.js';

/**
 * Prepares the image for captioning; its page holds a placeholder the host replaces with the caption. With no
 * captioner (`images` undefined) the file is refused with one sentence saying how to have images read.
 */
export async function parseImage(bytes: Uint8Array, name: string, images: ImageCollector | undefined): Promise<ParseOutcome> {
  if (!images) {
    return {
      ok: false,
      reason: 'unsupported',
      message: `${name} is an image and no vision model (profiles.yaml llm.vision) or Tesseract OCR is set up to read it.`,
    };
  }
  const placeholder = await images.addEncoded(bytes, { kind: 'file', page: 1, label: name });
  if (!placeholder) {
    const [why] = images.warnings(name);
    if (why) return parseError(why);
    return { ok: false, reason: 'no_text', message: `${name} is too small to be anything but an icon or decoration; it was skipped.` };
  }
  return { ok: true, title: null, pages: [{ page: 1, text: placeholder }], warnings: [] };
}

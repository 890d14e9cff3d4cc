// Where an image stood in extracted text: a placeholder the host replaces with the image's caption.
import type { PreparedImage } from '../vision/prepared-image.js';

/** An image embedded in a document (figure), a rendered scanned page, or an image file of its own. */
export type FoundImageKind = 'figure' | 'scan' | 'file';

/** One image to caption; its caption replaces placeholder number `n` in the page text. */
export interface FoundImage {
  n: number;
  kind: FoundImageKind;
  page: number;
  image: PreparedImage;
}

/** An image file an HTML page shows from beside it; the host has the worker read it (inside the documents folder only). */
export interface LocalImageRef {
  n: number;
  /** Relative path from the page's folder, URL-decoded, without query or fragment. */
  path: string;
  page: number;
}

/**
 * The placeholder for image `n`: letters and digits between ⟦ ⟧, which neither turndown nor the PDF line
 * builder rewrites, with a per-request random `nonce` so text in the document can't forge one.
 */
export function imagePlaceholder(nonce: string, n: number): string {
  return `⟦img${nonce}n${n}⟧`;
}

/** Matches every placeholder of `nonce`; group 1 is the image number. */
export function placeholderPattern(nonce: string): RegExp {
  return new RegExp(`⟦img${nonce}n(\\d+)⟧`, 'gu');
}


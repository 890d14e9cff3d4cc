// Worker side: gathers the images a parser meets, prepared for captioning, and leaves a placeholder where each stood.
import { MAX_IMAGE_BYTES_PER_FILE, MAX_IMAGES_PER_FILE } from '../vision/image-limits.js';
import { prepareEncodedImage, prepareRawImage, type PrepareOutcome, type RawPixels } from '../vision/prepare-image.js';
import type { PreparedImage } from '../vision/prepared-image.js';
import { imagePlaceholder, type FoundImage, type FoundImageKind, type LocalImageRef } from './image-placeholder.js';

export type { FoundImage, FoundImageKind, LocalImageRef } from './image-placeholder.js';

/**
 * Collects a file's images in document order, up to MAX_IMAGES_PER_FILE and MAX_IMAGE_BYTES_PER_FILE. Tiny
 * (decorative) images are skipped silently, a repeat of an image already collected gets no second caption, and
 * images that are too big or unreadable are counted for one warning each kind.
 */
export class ImageCollector {
  readonly images: FoundImage[] = [];
  /** Image files beside an HTML page, read by the host afterwards (their numbers are reserved here). */
  readonly localImages: LocalImageRef[] = [];
  private readonly seen = new Set<string>();
  private bytes = 0;
  private readonly skipped = { large: [] as string[], corrupt: [] as string[], overLimit: 0 };

  /** `localFiles`: the document is a file of the documents folder, so images beside it may be listed. */
  constructor(
    private readonly nonce: string,
    readonly localFiles = false,
  ) {}

  /** Reserves a caption for an image file beside the document (`path` relative to its folder); returns the placeholder. */
  addLocal(path: string, page: number): string {
    if (!this.localFiles) return '';
    if (this.full()) return this.leaveOut();
    if (this.localImages.some((ref) => ref.path === path)) return '';
    const n = this.images.length + this.localImages.length;
    this.localImages.push({ n, path, page });
    return imagePlaceholder(this.nonce, n);
  }

  /** An image file's bytes (PNG, JPEG, GIF, WebP, BMP); returns its placeholder, or '' when it was skipped. */
  async addEncoded(bytes: Uint8Array, where: { kind: FoundImageKind; page: number; label: string }): Promise<string> {
    if (this.full()) return this.leaveOut();
    return this.keep(await prepareEncodedImage(bytes), where);
  }

  /** Decoded pixels (a PDF image). */
  async addRaw(raw: RawPixels, where: { kind: FoundImageKind; page: number; label: string }): Promise<string> {
    if (this.full()) return this.leaveOut();
    return this.keep(await prepareRawImage(raw), where);
  }

  /** An image prepared elsewhere (a rendered page). */
  addPrepared(image: PreparedImage, where: { kind: FoundImageKind; page: number }): string {
    if (this.full()) return this.leaveOut();
    return this.keep({ ok: true, image }, { ...where, label: '' });
  }

  /** True when no more images are taken (callers may stop looking for them). */
  full(): boolean {
    return this.images.length + this.localImages.length >= MAX_IMAGES_PER_FILE || this.bytes >= MAX_IMAGE_BYTES_PER_FILE;
  }

  /** One warning per kind of skipped image, naming a few of them. */
  warnings(name: string): string[] {
    const out: string[] = [];
    const few = (labels: string[]) => labels.slice(0, 3).join('; ') + (labels.length > 3 ? `; …${labels.length - 3} more` : '');
    if (this.skipped.large.length) out.push(`${this.skipped.large.length} image(s) in ${name} are too large to caption and were skipped (${few(this.skipped.large)}).`);
    if (this.skipped.corrupt.length) out.push(`${this.skipped.corrupt.length} image(s) in ${name} could not be read and were skipped (${few(this.skipped.corrupt)}).`);
    if (this.skipped.overLimit) {
      out.push(`${name} has more images than are captioned per file (${MAX_IMAGES_PER_FILE}, ${MAX_IMAGE_BYTES_PER_FILE / 2 ** 20} MB); ${this.skipped.overLimit} were left out.`);
    }
    return out;
  }

  private keep(outcome: PrepareOutcome, { kind, page, label }: { kind: FoundImageKind; page: number; label: string }): string {
    if (!outcome.ok) {
      if (outcome.why === 'large') this.skipped.large.push(`${label}: ${outcome.detail}`);
      if (outcome.why === 'corrupt') this.skipped.corrupt.push(`${label}: ${outcome.detail}`);
      return '';
    }
    if (this.seen.has(outcome.image.sha256)) return '';
    this.seen.add(outcome.image.sha256);
    const n = this.images.length + this.localImages.length;
    this.images.push({ n, kind, page, image: outcome.image });
    this.bytes += outcome.image.data.byteLength;
    return imagePlaceholder(this.nonce, n);
  }

  /** Counts an image left out because the file's limit was reached; returns '' (no placeholder). */
  leaveOut(): string {
    this.skipped.overLimit++;
    return '';
  }
}

// An image ready for a captioner: encoded, bounded in size, and named by the SHA-256 of its source.

/** What the parse worker hands to the host for each image it found. */
export interface PreparedImage {
  /** SHA-256 (hex) of the source: the image file's bytes, or a PDF image's decoded pixels; the caption cache key. */
  sha256: string;
  mimeType: 'image/png' | 'image/jpeg';
  /** Encoded bytes, at most MAX_SENT_IMAGE_SIDE_PX (scans: SCAN_RENDER_LONG_SIDE_PX) on the longer side. */
  data: Uint8Array;
  width: number;
  height: number;
}

// Reads an image's width and height from its header bytes, so a decompression bomb is refused before it is decoded.

/** Width and height in pixels, as the file's header claims them. */
export interface ImageDimensions {
  width: number;
  height: number;
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/**
 * The dimensions a PNG, GIF or BMP header declares, or undefined for other formats and short files.
 * JPEG needs no sniffing: jimp's decoder (jpeg-js) refuses images over 100 megapixels on its own.
 */
export function readImageDimensions(bytes: Buffer): ImageDimensions | undefined {
  // PNG: signature, then the IHDR chunk whose data starts with big-endian width and height.
  if (bytes.length >= 24 && bytes.subarray(0, 8).equals(PNG_SIGNATURE)) {
    return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
  }
  // GIF: "GIF87a"/"GIF89a", then the logical screen's little-endian 16-bit width and height.
  if (bytes.length >= 10 && bytes.toString('latin1', 0, 4) === 'GIF8') {
    return { width: bytes.readUInt16LE(6), height: bytes.readUInt16LE(8) };
  }
  // BMP: "BM", then BITMAPINFOHEADER's signed 32-bit width and height (a negative height means top-down rows).
  if (bytes.length >= 26 && bytes.toString('latin1', 0, 2) === 'BM') {
    return { width: Math.abs(bytes.readInt32LE(18)), height: Math.abs(bytes.readInt32LE(22)) };
  }
  return undefined;
}

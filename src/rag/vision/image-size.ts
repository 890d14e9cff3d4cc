// Reads an image file's width and height from its header, so an image too big to decode is refused before decoding.

/** Width and height in pixels, as the header claims them. */
export interface ImageSize {
  width: number;
  height: number;
}

/** JPEG segments walked looking for the frame header; real files have a handful before it. */
const MAX_JPEG_SEGMENTS = 1_000;

/** The MIME type of PNG, JPEG, GIF, WebP and BMP bytes (by their magic numbers), or null for anything else. */
export function imageMimeType(bytes: Uint8Array): string | null {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (b.length >= 8 && b.readUInt32BE(0) === 0x89504e47 && b.readUInt32BE(4) === 0x0d0a1a0a) return 'image/png';
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'image/jpeg';
  if (b.length >= 6 && b.toString('latin1', 0, 4) === 'GIF8') return 'image/gif';
  if (b.length >= 12 && b.toString('latin1', 0, 4) === 'RIFF' && b.toString('latin1', 8, 12) === 'WEBP') return 'image/webp';
  if (b.length >= 2 && b.toString('latin1', 0, 2) === 'BM') return 'image/bmp';
  return null;
}

/** The size a PNG, JPEG, GIF, WebP or BMP header declares; undefined when the header is missing or unreadable. */
export function readImageSize(bytes: Uint8Array): ImageSize | undefined {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  switch (imageMimeType(bytes)) {
    case 'image/png':
      return b.length >= 24 ? { width: b.readUInt32BE(16), height: b.readUInt32BE(20) } : undefined;
    case 'image/gif':
      return b.length >= 10 ? { width: b.readUInt16LE(6), height: b.readUInt16LE(8) } : undefined;
    case 'image/bmp':
      return b.length >= 26 ? { width: Math.abs(b.readInt32LE(18)), height: Math.abs(b.readInt32LE(22)) } : undefined;
    case 'image/webp':
      return webpSize(b);
    case 'image/jpeg':
      return jpegSize(b);
    default:
      return undefined;
  }
}

function webpSize(b: Buffer): ImageSize | undefined {
  if (b.length < 30) return undefined;
  const chunk = b.toString('latin1', 12, 16);
  if (chunk === 'VP8X') return { width: 1 + b.readUIntLE(24, 3), height: 1 + b.readUIntLE(27, 3) };
  if (chunk === 'VP8 ') return { width: b.readUInt16LE(26) & 0x3fff, height: b.readUInt16LE(28) & 0x3fff };
  if (chunk === 'VP8L') {
    const bits = b.readUInt32LE(21);
    return { width: (bits & 0x3fff) + 1, height: ((bits >> 14) & 0x3fff) + 1 };
  }
  return undefined;
}

function jpegSize(b: Buffer): ImageSize | undefined {
  let offset = 2;
  for (let segment = 0; segment < MAX_JPEG_SEGMENTS && offset + 9 < b.length; segment++) {
    if (b[offset] !== 0xff) return undefined;
    const marker = b[offset + 1]!;
    // Fill bytes and markers without a length.
    if (marker === 0xff) {
      offset++;
      continue;
    }
    if (marker === 0xd8 || (marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) {
      offset += 2;
      continue;
    }
    // SOF0..SOF15 except DHT (C4), JPG (C8) and DAC (CC) carry the frame size.
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { height: b.readUInt16BE(offset + 5), width: b.readUInt16BE(offset + 7) };
    }
    offset += 2 + b.readUInt16BE(offset + 2);
  }
  return undefined;
}

// Image headers: the type and size of an image are read before it is decoded, so a bomb is refused unopened.
import { createCanvas } from '@napi-rs/canvas';
import { Jimp } from 'jimp';
import { describe, expect, it } from 'vitest';
import { imageMimeType, readImageSize } from '../../../src/rag/vision/image-size.js';

describe('readImageSize', () => {
  it('reads PNG, JPEG, GIF and BMP sizes', async () => {
    const image = new Jimp({ width: 123, height: 45, color: 0x336699ff });
    for (const mime of ['image/png', 'image/jpeg', 'image/gif', 'image/bmp'] as const) {
      const bytes = await image.getBuffer(mime);
      expect(imageMimeType(bytes)).toBe(mime);
      expect(readImageSize(bytes)).toEqual({ width: 123, height: 45 });
    }
  });

  it('reads lossy and lossless WebP sizes', async () => {
    const canvas = createCanvas(321, 77);
    expect(readImageSize(await canvas.encode('webp', 80))).toEqual({ width: 321, height: 77 });
    expect(readImageSize(await canvas.encode('webp', 100))).toEqual({ width: 321, height: 77 });
  });

  it('returns nothing for truncated or unknown bytes', () => {
    expect(readImageSize(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16]))).toBeUndefined();
    expect(readImageSize(Buffer.from('GIF8'))).toBeUndefined();
    expect(imageMimeType(Buffer.from('%PDF-1.4'))).toBeNull();
  });
});

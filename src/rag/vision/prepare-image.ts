// Worker side: decodes, size-checks, downscales and re-encodes images (files, PDF pixels, rendered pages).
// Untrusted image bytes are decoded only by JavaScript (jimp) and WebAssembly (WebP): a native decoder crashed the
// whole process on a damaged PNG here. @napi-rs/canvas only scales and encodes pixels we hold.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { errorMessage } from '../../errors.js';
import { MAX_IMAGE_PIXELS, MAX_SENT_IMAGE_BYTES, MAX_SENT_IMAGE_SIDE_PX, MIN_IMAGE_PIXELS, MIN_IMAGE_SIDE_PX } from './image-limits.js';
import { imageMimeType, readImageSize, type ImageSize } from './image-size.js';
import type { PreparedImage } from './prepared-image.js';

type CanvasModule = typeof import('@napi-rs/canvas');
type Canvas = import('@napi-rs/canvas').Canvas;

/** Re-encodings tried to bring an image under MAX_SENT_IMAGE_BYTES (PNG, JPEG, then JPEG at half size...). */
const MAX_ENCODE_ATTEMPTS = 4;
/** JPEG quality of a re-encoded photo: small, and still legible for text. */
const JPEG_QUALITY = 85;

/** Why an image was not prepared: too small to matter, too big to decode, or unreadable. */
export type PrepareSkip = { ok: false; why: 'small' | 'large' | 'corrupt'; detail: string };
export type PrepareOutcome = { ok: true; image: PreparedImage } | PrepareSkip;

let canvasModule: Promise<CanvasModule> | null = null;
/** @napi-rs/canvas, loaded on first use (a worker that sees no image never loads it). */
export function loadCanvas(): Promise<CanvasModule> {
  canvasModule ??= import('@napi-rs/canvas');
  return canvasModule;
}

/** True when an image of this size is worth a caption (not a rule, bullet or icon). */
export function isCaptionWorthy({ width, height }: ImageSize): boolean {
  return width >= MIN_IMAGE_SIDE_PX && height >= MIN_IMAGE_SIDE_PX && width * height >= MIN_IMAGE_PIXELS;
}

/**
 * Prepares an image file (PNG, JPEG, GIF, WebP, BMP). Its size is read from the header first, so a tiny image
 * or one over MAX_IMAGE_PIXELS is skipped without decoding. A PNG or JPEG already small enough is sent as it is.
 */
export async function prepareEncodedImage(bytes: Uint8Array): Promise<PrepareOutcome> {
  const mime = imageMimeType(bytes);
  const size = readImageSize(bytes);
  if (!mime || !size || size.width === 0 || size.height === 0) return { ok: false, why: 'corrupt', detail: 'not a readable PNG, JPEG, GIF, WebP or BMP image' };
  const checked = checkSize(size);
  if (checked) return checked;
  const sha256 = sha256Hex(bytes);
  // Decoded even when the bytes are sent as they are: a damaged file is skipped here, not sent to a model.
  let rgba: { data: Uint8Array | Uint8ClampedArray; width: number; height: number };
  try {
    rgba = await decodeImage(bytes, mime);
  } catch (err) {
    return { ok: false, why: 'corrupt', detail: `it could not be decoded (${errorMessage(err)})` };
  }
  if (rgba.width !== size.width || rgba.height !== size.height) return { ok: false, why: 'corrupt', detail: 'its header and its pixels disagree' };
  const fits = Math.max(size.width, size.height) <= MAX_SENT_IMAGE_SIDE_PX && bytes.byteLength <= MAX_SENT_IMAGE_BYTES;
  if (fits && (mime === 'image/png' || mime === 'image/jpeg')) {
    return { ok: true, image: { sha256, mimeType: mime, data: new Uint8Array(bytes), width: size.width, height: size.height } };
  }
  return { ok: true, image: await encodeBounded(await pixelsToCanvas(rgba), sha256, MAX_SENT_IMAGE_SIDE_PX) };
}

/** RGBA pixels of an image file: WebP through libwebp compiled to WebAssembly, the rest through jimp (pure JavaScript). */
async function decodeImage(bytes: Uint8Array, mime: string): Promise<{ data: Uint8Array | Uint8ClampedArray; width: number; height: number }> {
  if (mime === 'image/webp') {
    const decode = await loadWebpDecoder();
    const copy = bytes.slice();
    return decode(copy.buffer);
  }
  const { Jimp } = await import('jimp');
  const image = await Jimp.fromBuffer(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  return { data: image.bitmap.data, width: image.bitmap.width, height: image.bitmap.height };
}

let webpDecoder: Promise<(buffer: ArrayBuffer) => Promise<ImageDataLike>> | null = null;
interface ImageDataLike {
  data: Uint8ClampedArray;
  width: number;
  height: number;
}
/** @jsquash/webp with its WebAssembly read from disk (its own loader would fetch a file: URL, which Node 20 can't). */
function loadWebpDecoder(): Promise<(buffer: ArrayBuffer) => Promise<ImageDataLike>> {
  webpDecoder ??= (async () => {
    const module = await import('@jsquash/webp/decode.js');
    const wasmPath = createRequire(import.meta.url).resolve('@jsquash/webp/codec/dec/webp_dec.wasm');
    // The DOM-free type setup here declares no WebAssembly value; Node has it.
    const wasm = (globalThis as unknown as { WebAssembly: { compile(bytes: Uint8Array): Promise<unknown> } }).WebAssembly;
    await module.init((await wasm.compile(await readFile(wasmPath))) as never);
    return (buffer: ArrayBuffer) => module.default(buffer) as Promise<ImageDataLike>;
  })();
  return webpDecoder;
}

async function pixelsToCanvas({ data, width, height }: { data: Uint8Array | Uint8ClampedArray; width: number; height: number }): Promise<Canvas> {
  const { createCanvas, ImageData } = await loadCanvas();
  const canvas = createCanvas(width, height);
  const pixels = data instanceof Uint8ClampedArray ? data : new Uint8ClampedArray(data.buffer, data.byteOffset, data.byteLength);
  canvas.getContext('2d').putImageData(new ImageData(pixels, width, height), 0, 0);
  return canvas;
}

/** Decoded pixels as pdfjs hands them over: kind 1 = 1 bit grey (1 is white), 2 = RGB, 3 = RGBA. */
export interface RawPixels {
  width: number;
  height: number;
  kind: number;
  data: Uint8Array | Uint8ClampedArray;
}

/** Prepares decoded pixels (a PDF image); the cache key is the SHA-256 of size, kind and pixels. */
export async function prepareRawImage(raw: RawPixels): Promise<PrepareOutcome> {
  const checked = checkSize(raw);
  if (checked) return checked;
  const rgba = toRgba(raw);
  if (!rgba) return { ok: false, why: 'corrupt', detail: `its pixel data does not match its ${raw.width}×${raw.height} size` };
  const hash = createHash('sha256').update(`${raw.width}x${raw.height}:${raw.kind}:`).update(raw.data).digest('hex');
  return { ok: true, image: await encodeBounded(await pixelsToCanvas({ data: rgba, width: raw.width, height: raw.height }), hash, MAX_SENT_IMAGE_SIDE_PX) };
}

/** Prepares a canvas we drew (a rendered PDF page), downscaled to `maxSide`; the cache key is the SHA-256 of its pixels. */
export async function prepareCanvas(canvas: Canvas, maxSide: number): Promise<PreparedImage> {
  const pixels = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
  const hash = createHash('sha256').update(`${canvas.width}x${canvas.height}:rgba:`).update(pixels).digest('hex');
  return encodeBounded(canvas, hash, maxSide);
}

/** SHA-256 of `bytes`, hex: the caption cache key of an image file. */
function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

function checkSize(size: ImageSize): PrepareSkip | null {
  if (!isCaptionWorthy(size)) return { ok: false, why: 'small', detail: `${size.width}×${size.height} px` };
  if (size.width * size.height > MAX_IMAGE_PIXELS) {
    const mp = Math.round((size.width * size.height) / 1e6);
    return { ok: false, why: 'large', detail: `${size.width}×${size.height} px (${mp} megapixels, over the ${MAX_IMAGE_PIXELS / 1e6} megapixel limit)` };
  }
  return null;
}

/** Downscales to `maxSide`, encodes PNG, and falls back to JPEG and smaller sizes until under MAX_SENT_IMAGE_BYTES. */
async function encodeBounded(source: Canvas, sha256: string, maxSide: number): Promise<PreparedImage> {
  const { createCanvas } = await loadCanvas();
  let side = Math.min(maxSide, Math.max(source.width, source.height));
  let last: PreparedImage | null = null;
  for (let attempt = 0; attempt < MAX_ENCODE_ATTEMPTS; attempt++) {
    const scale = side / Math.max(source.width, source.height);
    const width = Math.max(1, Math.round(source.width * scale));
    const height = Math.max(1, Math.round(source.height * scale));
    let target = source;
    if (width !== source.width || height !== source.height) {
      target = createCanvas(width, height);
      const ctx = target.getContext('2d');
      ctx.imageSmoothingQuality = 'high';
      ctx.drawImage(source, 0, 0, width, height);
    }
    // PNG first (lossless: best for text and charts), JPEG when PNG is too big (photos).
    const png = attempt === 0 ? await target.encode('png') : null;
    const data = png && png.byteLength <= MAX_SENT_IMAGE_BYTES ? png : await target.encode('jpeg', JPEG_QUALITY);
    last = { sha256, mimeType: data === png ? 'image/png' : 'image/jpeg', data: new Uint8Array(data), width, height };
    if (data.byteLength <= MAX_SENT_IMAGE_BYTES) return last;
    side = Math.round(side / 2);
  }
  return last!;
}

function toRgba({ width, height, kind, data }: RawPixels): Uint8ClampedArray | null {
  const pixels = width * height;
  const out = new Uint8ClampedArray(pixels * 4);
  if (kind === 3 && data.length >= pixels * 4) {
    out.set(data.subarray(0, pixels * 4));
    return out;
  }
  if (kind === 2 && data.length >= pixels * 3) {
    for (let i = 0, j = 0; i < pixels; i++, j += 3) {
      out[i * 4] = data[j]!;
      out[i * 4 + 1] = data[j + 1]!;
      out[i * 4 + 2] = data[j + 2]!;
      out[i * 4 + 3] = 255;
    }
    return out;
  }
  const rowBytes = (width + 7) >> 3;
  if (kind === 1 && data.length >= rowBytes * height) {
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const v = (data[y * rowBytes + (x >> 3)]! >> (7 - (x & 7))) & 1 ? 255 : 0;
        const o = (y * width + x) * 4;
        out[o] = out[o + 1] = out[o + 2] = v;
        out[o + 3] = 255;
      }
    }
    return out;
  }
  return null;
}

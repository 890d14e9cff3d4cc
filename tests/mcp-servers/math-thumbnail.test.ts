// create_thumbnail through a real SDK Client: real images written to a temp folder, and every way the input can be wrong.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { lstat, mkdir, mkdtemp, readdir, readFile, rm, symlink, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join, relative } from 'node:path';
import { Jimp } from 'jimp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildMathServer } from '../../mcp-servers/math/build-server.js';
import { MAX_IMAGE_BYTES, thumbnailPathFor } from '../../mcp-servers/math/thumbnail-tool.js';
import { connectInMemory, textOf, type InMemoryConnection } from './connect-in-memory.js';

const RED = 0xff0000ff;

let conn: InMemoryConnection;
let dir: string;
let outside: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cortex-thumb-'));
  outside = await mkdtemp(join(tmpdir(), 'cortex-thumb-outside-'));
  conn = await connectInMemory(buildMathServer(), { roots: [dir] });
});
afterAll(async () => {
  await conn.close();
  await rm(dir, { recursive: true, force: true });
  await rm(outside, { recursive: true, force: true });
});

/** Writes a solid red image of the given size and format into the temp folder. */
async function writeImage(name: string, width: number, height: number, mime: 'image/png' | 'image/jpeg' = 'image/png'): Promise<string> {
  const path = join(dir, name);
  const image = new Jimp({ width, height, color: RED });
  await writeFile(path, mime === 'image/png' ? await image.getBuffer('image/png') : await image.getBuffer('image/jpeg'));
  return path;
}

async function thumbnailError(imagePath: string): Promise<string> {
  const res = await conn.call('create_thumbnail', { image_path: imagePath });
  expect(res.isError, textOf(res)).toBe(true);
  return textOf(res);
}

describe('create_thumbnail confined to the client\'s roots', () => {
  it('refuses an image outside the roots, also when reached through a link inside them, and writes nothing', async () => {
    const image = new Jimp({ width: 8, height: 8, color: RED });
    await writeFile(join(outside, 'private.png'), await image.getBuffer('image/png'));
    expect(await thumbnailError(join(outside, 'private.png'))).toMatch(/^not allowed: .* is outside the folders this server may use/);
    await symlink(join(outside, 'private.png'), join(dir, 'link.png'));
    expect(await thumbnailError(join(dir, 'link.png'))).toMatch(/^not allowed/);
    expect(await thumbnailError(join(dir, '..', basename(outside), 'private.png'))).toMatch(/^not allowed/);
    expect(await readdir(outside)).toEqual(['private.png']);
  });

  it('replaces a link planted at the thumbnail\'s name instead of writing through it', async () => {
    await writeFile(join(outside, 'victim.txt'), 'keep me');
    await symlink(join(outside, 'victim.txt'), join(dir, 'planted_thumbnail.png'));
    const source = await writeImage('planted.png', 10, 10);
    expect((await conn.call('create_thumbnail', { image_path: source })).isError).toBeFalsy();
    expect(await readFile(join(outside, 'victim.txt'), 'utf8')).toBe('keep me');
    expect((await lstat(join(dir, 'planted_thumbnail.png'))).isFile()).toBe(true);
  });

  it('refuses every path when the client offers no roots', async () => {
    const bare = await connectInMemory(buildMathServer());
    try {
      const source = await writeImage('unrooted.png', 10, 10);
      const res = await bare.call('create_thumbnail', { image_path: source });
      expect(res.isError).toBe(true);
      expect(textOf(res)).toMatch(/offers none/);
      expect(existsSync(join(dir, 'unrooted_thumbnail.png'))).toBe(false);
    } finally {
      await bare.close();
    }
  });
});

describe('create_thumbnail', () => {
  it('writes a 100×100 PNG beside the image, scaled to fit with transparent margins', async () => {
    const source = await writeImage('wide.png', 300, 150);
    const res = await conn.call('create_thumbnail', { image_path: source });
    expect(res.isError, textOf(res)).toBeFalsy();
    const thumbPath = join(dir, 'wide_thumbnail.png');
    expect(res.structuredContent).toEqual({ result: thumbPath });
    expect(JSON.parse(textOf(res))).toEqual({ result: thumbPath });

    const thumb = await Jimp.fromBuffer(await readFile(thumbPath));
    expect(thumb.mime).toBe('image/png');
    expect([thumb.bitmap.width, thumb.bitmap.height]).toEqual([100, 100]);
    // 300×150 scales to 100×50, centred: rows 25..74 are the picture, the rest transparent.
    expect(thumb.getPixelColor(50, 50)).toBe(RED);
    expect(thumb.getPixelColor(50, 5) & 0xff).toBe(0);
  });

  it('reads a JPEG and names the thumbnail after it', async () => {
    const source = await writeImage('photo.jpg', 40, 40, 'image/jpeg');
    const res = await conn.call('create_thumbnail', { image_path: source });
    expect(res.structuredContent).toEqual({ result: join(dir, 'photo_thumbnail.png') });
    const thumb = await Jimp.fromBuffer(await readFile(join(dir, 'photo_thumbnail.png')));
    expect([thumb.bitmap.width, thumb.bitmap.height]).toEqual([100, 100]);
  });

  it('resolves a relative path against the working directory and returns an absolute path', async () => {
    const source = await writeImage('relative.png', 10, 10);
    const res = await conn.call('create_thumbnail', { image_path: relative(process.cwd(), source) });
    expect(res.structuredContent).toEqual({ result: join(dir, 'relative_thumbnail.png') });
  });

  it('reports a missing image with its absolute path', async () => {
    const missing = join(dir, 'nope.png');
    expect(await thumbnailError(missing)).toBe(
      `image not found: ${missing} (check the path; relative paths start at ${process.cwd()})`,
    );
  });

  it('refuses a directory and a FIFO as not files, without blocking on the FIFO', async () => {
    const folder = join(dir, 'folder.png');
    await mkdir(folder);
    expect(await thumbnailError(folder)).toMatch(/^not a file: .*folder\.png is a directory/);
    const fifo = join(dir, 'pipe.png');
    execFileSync('mkfifo', [fifo]);
    expect(await thumbnailError(fifo)).toMatch(/^not a file: .*pipe\.png is a special file/);
  });

  it('refuses a file that is not an image and writes nothing', async () => {
    const text = join(dir, 'notes.png');
    await writeFile(text, 'just some text, not pixels');
    expect(await thumbnailError(text)).toMatch(/^not a readable image: .*notes\.png/);
    expect(existsSync(join(dir, 'notes_thumbnail.png'))).toBe(false);
  });

  it('refuses a file over the size limit before reading it', async () => {
    const huge = join(dir, 'huge.png');
    await writeFile(huge, '');
    await truncate(huge, MAX_IMAGE_BYTES + 1);
    expect(await thumbnailError(huge)).toMatch(/^image too large: .*huge\.png is \d+ bytes; the limit is 52428800 bytes/);
  });

  it('refuses a PNG whose header claims more pixels than the limit, before decoding it', async () => {
    const bomb = Buffer.alloc(64);
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(bomb, 0);
    bomb.write('IHDR', 12, 'latin1');
    bomb.writeUInt32BE(100_000, 16);
    bomb.writeUInt32BE(100_000, 20);
    const path = join(dir, 'bomb.png');
    await writeFile(path, bomb);
    expect(await thumbnailError(path)).toMatch(/^image too large: .*100000×100000 pixels; the limit is 40000000 pixels/);
  });

  it('keeps answering after failed thumbnails', async () => {
    await thumbnailError(join(dir, 'missing-again.png'));
    const res = await conn.call('add', { a: 1, b: 1 });
    expect(res.structuredContent).toEqual({ result: 2 });
  });
});

describe('thumbnailPathFor', () => {
  it('puts <name>_thumbnail.png beside the image, with or without an extension', () => {
    expect(thumbnailPathFor('/a/b/photo.jpeg')).toBe('/a/b/photo_thumbnail.png');
    expect(thumbnailPathFor('/a/b/photo')).toBe('/a/b/photo_thumbnail.png');
    expect(thumbnailPathFor('/a/b.d/archive.tar.png')).toBe('/a/b.d/archive.tar_thumbnail.png');
  });
});

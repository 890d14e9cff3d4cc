// The create_thumbnail tool: reads an image file and writes a 100×100 PNG thumbnail beside it.
import { readFile, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, extname, join, resolve } from 'node:path';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { exampleMeta } from '../shared/example-meta.js';
import { toolError, toolResult } from '../shared/tool-result.js';
import { readImageDimensions } from './image-header.js';

/** Side of the square thumbnail, in pixels (the original server's 100×100). */
export const THUMBNAIL_SIZE_PX = 100;

/** Largest image file read; a thumbnail source bigger than this is almost surely a mistake, and reading it costs memory. */
export const MAX_IMAGE_BYTES = 50 * 1024 * 1024;

/** Largest decoded image: 40 megapixels is 160 MB of RGBA, enough for any camera photo, small enough to stay up. */
export const MAX_IMAGE_PIXELS = 40_000_000;

/**
 * Example path for the standalone check. No real image can be known in advance, so the example names a file that
 * does not exist and is marked as expected to fail cleanly (an isError result, no file written).
 */
export const THUMBNAIL_EXAMPLE_PATH = 'cortex-r-example-missing-image.png';

/** Where the thumbnail of `imagePath` goes: beside it, as `<name>_thumbnail.png`. */
export function thumbnailPathFor(imagePath: string): string {
  return join(dirname(imagePath), `${basename(imagePath, extname(imagePath))}_thumbnail.png`);
}

/** Message for a failed fs call on the image, by error code, so the model knows whether to fix the path or give up. */
function fsFailure(action: string, path: string, err: unknown): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (action === 'read' && (code === 'ENOENT' || code === 'ENOTDIR')) return `image not found: ${path} (check the path; relative paths start at ${process.cwd()})`;
  if (code === 'EACCES' || code === 'EPERM') return `permission denied: cannot ${action} ${path}`;
  return `cannot ${action} ${path}: ${err instanceof Error ? err.message : String(err)}`;
}

/** Reads, checks and shrinks the image; every expected failure comes back as an isError result. */
export async function createThumbnail(imagePathArg: string): Promise<CallToolResult> {
  const imagePath = resolve(imagePathArg);
  let info;
  try {
    info = await stat(imagePath);
  } catch (err) {
    return toolError(fsFailure('read', imagePath, err));
  }
  // A directory, FIFO or device is refused before reading: a FIFO would block the server forever.
  if (!info.isFile()) {
    return toolError(`not a file: ${imagePath} is a ${info.isDirectory() ? 'directory' : 'special file'}; give the path of an image file`);
  }
  if (info.size > MAX_IMAGE_BYTES) {
    return toolError(`image too large: ${imagePath} is ${info.size} bytes; the limit is ${MAX_IMAGE_BYTES} bytes`);
  }

  let bytes: Buffer;
  try {
    bytes = await readFile(imagePath);
  } catch (err) {
    return toolError(fsFailure('read', imagePath, err));
  }
  const dimensions = readImageDimensions(bytes);
  if (dimensions && dimensions.width * dimensions.height > MAX_IMAGE_PIXELS) {
    return toolError(
      `image too large: ${imagePath} is ${dimensions.width}×${dimensions.height} pixels; the limit is ${MAX_IMAGE_PIXELS} pixels`,
    );
  }

  // Loaded on first use: importing jimp takes about half a second, more than the rest of the server's start-up.
  const { Jimp } = await import('jimp');
  let image;
  try {
    // fromBuffer, never Jimp.read: read() fetches a path it cannot find as a URL, and this server must not reach the network.
    image = await Jimp.fromBuffer(bytes);
  } catch (err) {
    return toolError(
      `not a readable image: ${imagePath} (PNG, JPEG, BMP, GIF or TIFF expected): ${err instanceof Error ? err.message : String(err)}`,
    );
  }

  let png: Buffer;
  try {
    // contain: the whole picture scaled to fit, aspect ratio kept, the rest of the square left transparent.
    image.contain({ w: THUMBNAIL_SIZE_PX, h: THUMBNAIL_SIZE_PX });
    png = await image.getBuffer('image/png');
  } catch (err) {
    return toolError(`could not make a thumbnail of ${imagePath}: ${err instanceof Error ? err.message : String(err)}`);
  }
  const thumbnailPath = thumbnailPathFor(imagePath);
  try {
    await writeFile(thumbnailPath, png);
  } catch (err) {
    return toolError(fsFailure('write the thumbnail', thumbnailPath, err));
  }
  return toolResult(thumbnailPath);
}

/** Registers create_thumbnail on `server`. */
export function registerThumbnailTool(server: McpServer): void {
  server.registerTool(
    'create_thumbnail',
    {
      title: 'Create an image thumbnail',
      description:
        `Makes a ${THUMBNAIL_SIZE_PX}×${THUMBNAIL_SIZE_PX} PNG thumbnail of an image file (PNG, JPEG, BMP, GIF or TIFF) ` +
        'and saves it beside the image as <name>_thumbnail.png (photo.jpg → photo_thumbnail.png), replacing an older one. ' +
        'The picture is scaled to fit, keeping its aspect ratio, with transparent margins. Returns the thumbnail\'s absolute path.',
      inputSchema: {
        image_path: z
          .string()
          .min(1)
          .describe("Path of the image file: absolute, or relative to the math server's working directory"),
      },
      outputSchema: { result: z.string().describe('Absolute path of the written PNG thumbnail') },
      // Writes beside the image and replaces an older thumbnail: destructive, though the same call twice gives the same file.
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
      _meta: exampleMeta({ image_path: THUMBNAIL_EXAMPLE_PATH }, { expectsError: true }),
    },
    ({ image_path }) => createThumbnail(image_path),
  );
}

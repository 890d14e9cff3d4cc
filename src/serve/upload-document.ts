// A document uploaded over HTTP: its name checked like a file dropped into documents/, streamed to a temp file with
// a size cap; it replaces the file of that name only once it has been read (see documents-route).
import { randomBytes } from 'node:crypto';
import { open, readdir, rm } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { DocumentsFolderError } from '../rag/errors.js';
import { formatOfPath, SUPPORTED_EXTENSIONS } from '../rag/extract/formats.js';
import { TEMP_FILE_MARKER } from '../atomic-write.js';
import { isIgnoredName } from '../rag/index/scan-documents.js';
import { ApiError } from './api-error.js';
import { cappedBodyChunks, checkDeclaredLength } from './http-io.js';

/** Longest file name accepted, in UTF-8 bytes: most filesystems allow 255, and the temp name adds about 30. */
export const MAX_UPLOAD_NAME_BYTES = 200;

/**
 * Control characters, the Unicode format characters (bidi overrides and isolates, zero-width ones) that make a
 * name display as another, and U+FFFD (what is left of bytes that were not UTF-8).
 */
const UNSAFE_NAME_CHARS = /[/\\\p{Cc}\p{Cf}\u{FFFD}\u2028\u2029]/u;

/**
 * Checks an upload's file name and returns it in Unicode NFC (so the NFC and NFD spellings of one name are one
 * file): one plain name (no folders, `..`, control or bidi characters), not a name the indexer ignores (hidden,
 * temp, backup files), with an extension the indexer reads.
 * @throws ApiError 400 for a bad name, 415 for an unsupported type.
 */
export function checkUploadName(raw: string | null): string {
  if (!raw) throw new ApiError(400, 'bad_name', 'give the file name as ?name=<file name>');
  const name = raw.normalize('NFC');
  const shown = JSON.stringify(name.slice(0, 80));
  if (UNSAFE_NAME_CHARS.test(name) || name === '.' || name === '..') {
    throw new ApiError(400, 'bad_name', `${shown} is not a plain file name (no folders, control, invisible or bidirectional-text characters)`);
  }
  if (Buffer.byteLength(name) > MAX_UPLOAD_NAME_BYTES) {
    throw new ApiError(400, 'bad_name', `the file name is longer than ${MAX_UPLOAD_NAME_BYTES} bytes; shorten it`);
  }
  if (isIgnoredName(name)) throw new ApiError(400, 'bad_name', `${shown} is a hidden, temporary or backup file name, which the indexer ignores`);
  if (!formatOfPath(name)) {
    throw new ApiError(415, 'unsupported_type', `${shown} is not a supported document; use one of ${SUPPORTED_EXTENSIONS.join(' ')}`);
  }
  return name;
}

/** How two names compare as one file: the same in NFC, ignoring case (as on macOS and Windows). */
const sameFileKey = (name: string) => name.normalize('NFC').toLocaleLowerCase('und');

/**
 * The name the upload is stored under: `name`, or the name of a file already in `documentsDir` that differs from
 * it only in case or Unicode form (a re-upload replaces that file rather than adding a near-twin).
 */
export async function storedName(documentsDir: string, name: string): Promise<string> {
  const key = sameFileKey(name);
  const entries = await readdir(documentsDir).catch(() => [] as string[]);
  if (entries.includes(name)) return name;
  return entries.find((entry) => !isIgnoredName(entry) && sameFileKey(entry) === key) ?? name;
}

/** A temp file in `documentsDir` the indexer ignores, ending in `name` so its type is known. */
export function tempPathFor(documentsDir: string, name: string, role: string): string {
  return join(documentsDir, `${TEMP_FILE_MARKER}${process.pid}-${randomBytes(4).toString('hex')}-${role}-${name}`);
}

/**
 * Streams the request body into a new temp file in `documentsDir` (one the indexer ignores, ending in `name`) and
 * returns its path: nothing in the folder changes yet. @throws ApiError 413 past `maxBytes`, 400 when empty;
 * DocumentsFolderError when the folder is missing.
 */
export async function saveUpload({ req, documentsDir, name, maxBytes }: { req: IncomingMessage; documentsDir: string; name: string; maxBytes: number }): Promise<{ temp: string; bytes: number }> {
  checkDeclaredLength(req, maxBytes);
  const temp = tempPathFor(documentsDir, name, 'upload');
  let bytes = 0;
  try {
    // Never created here: indexing a mistyped, empty folder would empty the index.
    const handle = await open(temp, 'wx', 0o644).catch((err: NodeJS.ErrnoException) => {
      throw err.code === 'ENOENT' ? new DocumentsFolderError(documentsDir, 'it does not exist (create it, or fix paths.documents in the profile)', { cause: err }) : err;
    });
    try {
      const tooLarge = () => new ApiError(413, 'upload_too_large', `the upload is larger than the limit of ${maxBytes} bytes`);
      for await (const chunk of cappedBodyChunks(req, maxBytes, tooLarge)) {
        bytes += chunk.length;
        await handle.write(chunk);
      }
    } finally {
      await handle.close();
    }
    if (bytes === 0) throw new ApiError(400, 'empty_upload', 'the upload is empty');
    return { temp, bytes };
  } catch (err) {
    await rm(temp, { force: true });
    throw err;
  }
}

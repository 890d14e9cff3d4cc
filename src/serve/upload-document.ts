// A document uploaded over HTTP: its name checked like a file dropped into documents/, streamed to disk with a size cap.
import { randomBytes } from 'node:crypto';
import { open, rename, rm } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { DocumentsFolderError } from '../rag/errors.js';
import { formatOfPath, SUPPORTED_EXTENSIONS } from '../rag/extract/formats.js';
import { TEMP_FILE_MARKER } from '../rag/index/atomic-write.js';
import { isIgnoredName } from '../rag/index/scan-documents.js';
import { ApiError } from './api-error.js';
import { cappedBodyChunks, checkDeclaredLength } from './http-io.js';

/** Longest file name accepted (most filesystems allow 255 bytes). */
export const MAX_UPLOAD_NAME_CHARS = 200;

/**
 * Checks an upload's file name: one plain name (no folders, `..`, control characters), not a name the indexer
 * ignores (hidden, temp, backup files), with an extension the indexer reads.
 * @throws ApiError 400 for a bad name, 415 for an unsupported type.
 */
export function checkUploadName(name: string | null): string {
  if (!name) throw new ApiError(400, 'bad_name', 'give the file name as ?name=<file name>');
  if (name.length > MAX_UPLOAD_NAME_CHARS || /[/\\\x00-\x1f\x7f]/.test(name) || name === '.' || name === '..') {
    throw new ApiError(400, 'bad_name', `"${name.slice(0, 80)}" is not a plain file name (no folders, at most ${MAX_UPLOAD_NAME_CHARS} characters)`);
  }
  if (isIgnoredName(name)) throw new ApiError(400, 'bad_name', `"${name}" is a hidden, temporary or backup file name, which the indexer ignores`);
  if (!formatOfPath(name)) {
    throw new ApiError(415, 'unsupported_type', `"${name}" is not a supported document; use one of ${SUPPORTED_EXTENSIONS.join(' ')}`);
  }
  return name;
}

/**
 * Streams the request body into `documentsDir/name`: first a temp file (which the indexer ignores), then a
 * rename, so readers never see half a file and a symbolic link already at that name is replaced, never
 * written through. @throws ApiError 413 past `maxBytes`, 409 when a folder has that name.
 */
export async function saveUpload({ req, documentsDir, name, maxBytes }: { req: IncomingMessage; documentsDir: string; name: string; maxBytes: number }): Promise<{ path: string; bytes: number }> {
  checkDeclaredLength(req, maxBytes);
  const path = join(documentsDir, name);
  const temp = join(documentsDir, `.${name}${TEMP_FILE_MARKER}${process.pid}-${randomBytes(4).toString('hex')}`);
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
    await rename(temp, path).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'EISDIR' || err.code === 'ENOTEMPTY' || err.code === 'EEXIST') throw new ApiError(409, 'name_taken', `documents/${name} is a folder`);
      throw err;
    });
    return { path, bytes };
  } catch (err) {
    await rm(temp, { force: true });
    throw err;
  }
}

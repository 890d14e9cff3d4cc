// Reads one config file safely: regular files only (checked on the open descriptor), a bounded read, strict UTF-8.
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { isUtf8 } from 'node:buffer';
import { ConfigError } from '../errors.js';

/** Config files larger than this are refused: no real profile comes close (the shipped one is 3 KB). */
export const MAX_CONFIG_BYTES = 1_000_000;

/** Key named by errors about the file as a whole rather than one setting in it. */
export const WHOLE_FILE = '(whole file)';

/** What a file-type check calls each kind of non-regular file, for the message. */
function kindOf(stat: ReturnType<typeof fstatSync>): string {
  if (stat.isDirectory()) return 'a directory';
  if (stat.isFIFO()) return 'a named pipe (FIFO)';
  if (stat.isCharacterDevice()) return 'a character device';
  if (stat.isBlockDevice()) return 'a block device';
  if (stat.isSocket()) return 'a socket';
  return 'not a regular file';
}

/** The 1-based line holding byte `offset` of `bytes`. */
function lineAt(bytes: Uint8Array, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < bytes.length; i++) if (bytes[i] === 0x0a) line++;
  return line;
}

/** The first line of `bytes` that is not valid UTF-8 (a newline byte never occurs inside a UTF-8 sequence), or 0. */
function firstInvalidUtf8Line(bytes: Buffer): number {
  let start = 0;
  for (let line = 1; start <= bytes.length; line++) {
    const end = bytes.indexOf(0x0a, start);
    const stop = end < 0 ? bytes.length : end;
    if (!isUtf8(bytes.subarray(start, stop))) return line;
    if (end < 0) return 0;
    start = end + 1;
  }
  return 0;
}

/**
 * Reads `file` as UTF-8 text. Opens it without blocking (a FIFO with no writer would otherwise hang the open),
 * checks on the open descriptor that it is a regular file (so /dev/zero, a FIFO or a directory is refused unread,
 * symlinks included), reads at most MAX_CONFIG_BYTES + 1 bytes, and refuses invalid UTF-8 rather than turn it
 * into U+FFFD. A leading byte-order mark is dropped.
 * @throws ConfigError naming the file, the line (the first bad line, or 1 for the whole file) and the problem.
 */
export function readConfigFile(file: string): string {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'file not found' : code === 'EACCES' ? 'permission denied' : `could not be opened (${code ?? String(err)})`;
    // A file that cannot be opened has no line or key to name.
    throw new ConfigError(file, '', why, { cause: err });
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) {
      throw new ConfigError(file, WHOLE_FILE, `is ${kindOf(stat)}, not a regular file; give the path of a YAML file`, { line: 1 });
    }
    // One byte more than the limit tells "too big" from "exactly at the limit" without trusting st_size.
    const buffer = Buffer.alloc(MAX_CONFIG_BYTES + 1);
    let size = 0;
    // Bounded: every pass reads at least one byte into a buffer of fixed size, or stops.
    while (size < buffer.length) {
      let read: number;
      try {
        read = readSync(fd, buffer, size, buffer.length - size, null);
      } catch (err) {
        throw new ConfigError(file, WHOLE_FILE, `could not be read (${(err as NodeJS.ErrnoException).code ?? String(err)})`, { cause: err });
      }
      if (read === 0) break;
      size += read;
    }
    if (size > MAX_CONFIG_BYTES) {
      const line = lineAt(buffer, MAX_CONFIG_BYTES);
      throw new ConfigError(file, WHOLE_FILE, `larger than the ${MAX_CONFIG_BYTES.toLocaleString('en-US')}-byte limit for a config file (reached on this line)`, { line });
    }
    const bytes = buffer.subarray(0, size);
    if (!isUtf8(bytes)) {
      const line = firstInvalidUtf8Line(bytes);
      throw new ConfigError(file, WHOLE_FILE, 'is not valid UTF-8 on this line; save the file as UTF-8', { line: line || 1 });
    }
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } finally {
    closeSync(fd);
  }
}

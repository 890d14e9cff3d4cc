// Which parser handles a file (by extension) or a fetched body (by content type).
import { extname } from 'node:path';

/** Formats the parse worker understands. */
export type ParseFormat = 'pdf' | 'html' | 'md' | 'txt' | 'csv' | 'json' | 'docx' | 'image';
/** Formats of files in the documents folder: the parse formats plus `.url` shortcuts. */
export type FileFormat = ParseFormat | 'url';

const BY_EXTENSION: Record<string, FileFormat> = {
  '.pdf': 'pdf',
  '.html': 'html',
  '.htm': 'html',
  '.xhtml': 'html',
  '.md': 'md',
  '.markdown': 'md',
  '.txt': 'txt',
  '.text': 'txt',
  '.csv': 'csv',
  '.json': 'json',
  '.docx': 'docx',
  '.url': 'url',
  // Read by a vision model or Tesseract when one is set up.
  '.png': 'image',
  '.jpg': 'image',
  '.jpeg': 'image',
  '.webp': 'image',
  '.gif': 'image',
  '.bmp': 'image',
};

/** Extensions the extractor accepts, lower-case with the dot (for folder scans). */
export const SUPPORTED_EXTENSIONS: readonly string[] = Object.keys(BY_EXTENSION);

/** The format of a file name, or null when its extension is not supported. */
export function formatOfPath(path: string): FileFormat | null {
  return BY_EXTENSION[extname(path).toLowerCase()] ?? null;
}

/** True when a file of this name can hold images (figures, scanned pages, the image itself). */
export function canHoldImages(path: string): boolean {
  const format = formatOfPath(path);
  return format === 'pdf' || format === 'docx' || format === 'html' || format === 'image';
}

/** The parser for a fetched body, from its Content-Type and, failing that, its first bytes; null when unsupported. */
export function formatOfContentType(contentType: string, body: Uint8Array): ParseFormat | null {
  const type = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  if (type === 'text/html' || type === 'application/xhtml+xml') return 'html';
  if (type === 'application/pdf') return 'pdf';
  if (type === 'application/json' || type.endsWith('+json')) return 'json';
  if (type === 'text/markdown' || type === 'text/x-markdown') return 'md';
  if (type === 'text/csv') return 'csv';
  if (type.startsWith('text/')) return 'txt';
  // Servers often send pages as application/octet-stream or with no type at all.
  const head = new TextDecoder().decode(body.subarray(0, 512)).trimStart().toLowerCase();
  if (head.startsWith('%pdf-')) return 'pdf';
  if (head.startsWith('<!doctype html') || head.startsWith('<html')) return 'html';
  if (type === '' || type === 'application/octet-stream') return 'txt';
  return null;
}

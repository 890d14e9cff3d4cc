// Turns a fetched body into a string: byte-order mark, then the Content-Type charset, then <meta charset>, else UTF-8.
import { TextDecoder } from 'node:util';

/** How far into the body a <meta charset> is looked for; HTML requires it within the first 1024 bytes. */
const META_CHARSET_SCAN_BYTES = 1024;

function bomEncoding(bytes: Buffer): string | undefined {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return 'utf-8';
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf-16le';
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return 'utf-16be';
  return undefined;
}

function metaCharset(bytes: Buffer): string | undefined {
  const head = bytes.subarray(0, META_CHARSET_SCAN_BYTES).toString('latin1');
  // Covers <meta charset="x"> and <meta http-equiv="Content-Type" content="text/html; charset=x">.
  return /<meta[^>]+charset\s*=\s*["']?\s*([\w.:-]+)/i.exec(head)?.[1];
}

function decoderFor(label: string | undefined): TextDecoder | undefined {
  if (!label) return undefined;
  try {
    return new TextDecoder(label.trim().toLowerCase());
  } catch {
    // An unknown label (a typo on the site's side) falls through to the next source, as browsers do.
    return undefined;
  }
}

/** Decodes `bytes` using, in order, a byte-order mark, `headerCharset`, a <meta> charset, else UTF-8; never throws. */
export function decodeText(bytes: Buffer, headerCharset: string | undefined): string {
  const decoder = decoderFor(bomEncoding(bytes)) ?? decoderFor(headerCharset) ?? decoderFor(metaCharset(bytes)) ?? new TextDecoder('utf-8');
  return decoder.decode(bytes);
}

// Bytes → string for plain-text formats: BOMs, UTF-8 with a Windows-1252 fallback, and refusing binary files.
import { BINARY_SNIFF_BYTES, MAX_CONTROL_CHAR_RATIO } from './limits.js';

export type DecodedText = { ok: true; text: string; warnings: string[] } | { ok: false; message: string };

/**
 * Decodes a text file. A UTF-8 or UTF-16 BOM decides the encoding (and is dropped); otherwise UTF-8,
 * and Windows-1252 (with a warning) when the bytes are not valid UTF-8. A file with NUL bytes or many
 * control characters in its first 64 KB is refused as binary.
 */
export function decodeText(bytes: Uint8Array, name: string): DecodedText {
  const binary = { ok: false as const, message: `${name} looks like a binary file, not text.` };
  const [b0, b1, b2] = [bytes[0], bytes[1], bytes[2]];
  let text: string;
  const warnings: string[] = [];
  if (b0 === 0xef && b1 === 0xbb && b2 === 0xbf) {
    text = new TextDecoder('utf-8').decode(bytes.subarray(3));
  } else if (b0 === 0xff && b1 === 0xfe) {
    text = new TextDecoder('utf-16le').decode(bytes.subarray(2));
  } else if (b0 === 0xfe && b1 === 0xff) {
    text = new TextDecoder('utf-16be').decode(bytes.subarray(2));
  } else {
    if (bytes.subarray(0, BINARY_SNIFF_BYTES).includes(0)) return binary;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      text = new TextDecoder('windows-1252').decode(bytes);
      warnings.push(`${name} is not valid UTF-8; it was read as Windows-1252.`);
    }
  }
  if (looksBinary(text.slice(0, BINARY_SNIFF_BYTES))) return binary;
  return { ok: true, text: text.replace(/\r\n?/g, '\n'), warnings };
}

function looksBinary(sample: string): boolean {
  if (sample.length === 0) return false;
  let control = 0;
  for (let i = 0; i < sample.length; i++) {
    const c = sample.charCodeAt(i);
    // Tab, line feed, vertical tab, form feed, carriage return and escape appear in real text files.
    if ((c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0b && c !== 0x0c && c !== 0x0d && c !== 0x1b) || c === 0x7f) control++;
    if (c === 0) return true;
  }
  return control / sample.length > MAX_CONTROL_CHAR_RATIO;
}

// Bytes → string for plain-text formats: BOMs, UTF-8 with a Windows-1252 fallback, and refusing binary files.
import { BINARY_SNIFF_BYTES, MAX_CONTROL_CHAR_RATIO } from './limits.js';

// Made once, not per file: decode() without {stream: true} starts from a clean state on every call (the BOM seen and
// a fatal error included), so a shared decoder gives what a fresh one would.
const UTF8 = new TextDecoder('utf-8');
const UTF8_STRICT = new TextDecoder('utf-8', { fatal: true });
const UTF16LE = new TextDecoder('utf-16le');
const UTF16BE = new TextDecoder('utf-16be');
const WINDOWS_1252 = new TextDecoder('windows-1252');

/** Control characters that real text files do not hold: all but tab, line feed, vertical tab, form feed, carriage return and escape. */
const UNUSUAL_CONTROL = /[\x00-\x08\x0e-\x1a\x1c-\x1f\x7f]/;

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
    text = UTF8.decode(bytes.subarray(3));
  } else if (b0 === 0xff && b1 === 0xfe) {
    text = UTF16LE.decode(bytes.subarray(2));
  } else if (b0 === 0xfe && b1 === 0xff) {
    text = UTF16BE.decode(bytes.subarray(2));
  } else {
    if (bytes.subarray(0, BINARY_SNIFF_BYTES).includes(0)) return binary;
    try {
      text = UTF8_STRICT.decode(bytes);
    } catch {
      text = WINDOWS_1252.decode(bytes);
      warnings.push(`${name} is not valid UTF-8; it was read as Windows-1252.`);
    }
  }
  if (looksBinary(text.slice(0, BINARY_SNIFF_BYTES))) return binary;
  // Most files have no carriage return: the search is cheaper than a replace that finds nothing.
  return { ok: true, text: text.includes('\r') ? text.replace(/\r\n?/g, '\n') : text, warnings };
}

function looksBinary(sample: string): boolean {
  // Without any such character the count below is 0: one native scan decides most files.
  if (!UNUSUAL_CONTROL.test(sample)) return false;
  let control = 0;
  for (let i = 0; i < sample.length; i++) {
    const c = sample.charCodeAt(i);
    // Tab, line feed, vertical tab, form feed, carriage return and escape appear in real text files.
    if ((c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0b && c !== 0x0c && c !== 0x0d && c !== 0x1b) || c === 0x7f) control++;
    if (c === 0) return true;
  }
  return control / sample.length > MAX_CONTROL_CHAR_RATIO;
}

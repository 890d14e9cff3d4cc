// Property: decodeText, with its shared decoders and shortcuts, decodes and refuses exactly what the plain version does.
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { decodeText, type DecodedText } from '../../src/rag/extract/decode-text.js';
import { BINARY_SNIFF_BYTES, MAX_CONTROL_CHAR_RATIO } from '../../src/rag/extract/limits.js';
import { check, RUNS, tallyLine } from './property-settings.js';

afterAll(() => console.log(`decode-text properties: ${tallyLine()}`));

/** The plain decodeText, a fresh decoder per call and no shortcut: the reference. */
function decodeTextPlain(bytes: Uint8Array, name: string): DecodedText {
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
  const sample = text.slice(0, BINARY_SNIFF_BYTES);
  let control = 0;
  for (let i = 0; i < sample.length; i++) {
    const c = sample.charCodeAt(i);
    if (c === 0) return binary;
    if ((c < 0x20 && ![0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x1b].includes(c)) || c === 0x7f) control++;
  }
  if (sample.length > 0 && control / sample.length > MAX_CONTROL_CHAR_RATIO) return binary;
  return { ok: true, text: text.replace(/\r\n?/g, '\n'), warnings };
}

/** Byte runs that steer the decoder: BOMs, line ends, NUL and other control bytes, broken and whole UTF-8, UTF-16 units. */
const BYTE_TOKENS: ReadonlyArray<readonly number[]> = [
  [0xef, 0xbb, 0xbf], [0xff, 0xfe], [0xfe, 0xff], [0x0d], [0x0a], [0x0d, 0x0a], [0x0d, 0x0d, 0x0a], [0x00], [0x01], [0x07], [0x08], [0x09], [0x0b],
  [0x0c], [0x0e], [0x1a], [0x1b], [0x1c], [0x1f], [0x7f], [0x80], [0x9d], [0xe9], [0xc3], [0xc3, 0xa9], [0xe2, 0x82], [0xe2, 0x82, 0xac],
  [0xf0, 0x9f, 0x98, 0x80], [0xed, 0xa0, 0x80], [0xd8, 0x3d], [0xdc, 0x00], [0x61], [0x20], [0x61, 0x00], [0x00, 0x61], [0x23, 0x20, 0x54],
];

/** Bytes mixing those runs with random bytes; sometimes after 64 KiB of text, so the sniffed sample ends inside them. */
const fileBytes = fc
  .tuple(
    fc.oneof({ weight: 9, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.constantFrom(BINARY_SNIFF_BYTES - 3, BINARY_SNIFF_BYTES - 1, BINARY_SNIFF_BYTES) }),
    fc.option(fc.constantFrom([0xef, 0xbb, 0xbf], [0xff, 0xfe], [0xfe, 0xff]), { freq: 2 }),
    fc.array(fc.oneof(fc.constantFrom(...BYTE_TOKENS), fc.array(fc.integer({ min: 0, max: 255 }), { maxLength: 4 })), { maxLength: 200 }),
  )
  .map(([padding, bom, runs]) => Uint8Array.from([...(bom ?? []), ...new Array<number>(padding).fill(0x61), ...runs.flat()]));

describe('decodeText, property-based', () => {
  it('gives the text, warnings and refusals of the plain version, for any bytes', async () => {
    await check(
      'decodeText',
      fc.property(fileBytes, (bytes) => {
        expect(decodeText(bytes, 'f.txt')).toEqual(decodeTextPlain(bytes, 'f.txt'));
      }),
      RUNS.pure * 4,
    );
  });
});

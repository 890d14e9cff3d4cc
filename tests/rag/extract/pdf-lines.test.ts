// Rebuilding lines and paragraphs from pdfjs text items.
import { describe, expect, it } from 'vitest';
import { rebuildLines, type PdfTextItem } from '../../../src/rag/extract/pdf-lines.js';

/** A text item at (x, y) in a 10 pt font, each character 5 pt wide. */
function item(str: string, x: number, y: number, size = 10): PdfTextItem {
  return { str, transform: [size, 0, 0, size, x, y], width: str.length * size * 0.5, height: size };
}

describe('rebuildLines', () => {
  it('joins items on one baseline, adding a space only where there is a gap', () => {
    expect(rebuildLines([item('Hello', 0, 100), item('world', 30, 100), item('!', 55, 100)])).toBe('Hello world!');
  });

  it('starts a new line when the baseline moves down by a line', () => {
    expect(rebuildLines([item('first line', 0, 100), item('second line', 0, 88)])).toBe('first line\nsecond line');
  });

  it('marks a paragraph where the gap is wider than normal leading, or where text jumps back up (next column)', () => {
    const text = rebuildLines([item('end of para', 0, 100), item('new para', 0, 70), item('column two', 300, 700)]);
    expect(text).toBe('end of para\n\nnew para\n\ncolumn two');
  });

  it('keeps a superscript on its line', () => {
    expect(rebuildLines([item('E = mc', 0, 100), item('2', 30, 104, 6), item(' holds', 33, 100)])).toBe('E = mc2 holds');
  });

  it('puts text printed later on the same baseline but far to the left on its own line', () => {
    expect(rebuildLines([item('right column', 300, 100), item('left cell', 0, 100)])).toBe('right column\nleft cell');
  });

  it('skips empty items and collapses runs of spaces', () => {
    expect(rebuildLines([item('a   b', 0, 100), item('', 40, 100), item('c', 30, 100)])).toBe('a b c');
  });
});

// Rebuilds lines and paragraphs of one PDF page from pdfjs text items and their positions.

/** The fields of a pdfjs TextItem this module reads. */
export interface PdfTextItem {
  str: string;
  /** [a, b, c, d, x, y]: the glyph matrix; x, y is the baseline start. */
  transform: number[];
  width: number;
  height: number;
}

/** A baseline move larger than this share of the (larger) font size starts a new line (sub/superscripts move less). */
const NEW_LINE_RATIO = 0.5;
/** A downward move larger than this many font sizes (normal leading is ~1.2) starts a new paragraph. */
const PARAGRAPH_GAP_RATIO = 1.7;
/** A horizontal gap wider than this share of the font size between two items is a word space. */
const WORD_GAP_RATIO = 0.15;

/**
 * Joins a page's text items into lines. Items keep the content-stream order (which follows columns in
 * multi-column papers); a line ends where the baseline moves by more than half the font size or the
 * text jumps back to the left, and a blank line marks a bigger downward jump or a jump back up (next column).
 */
export function rebuildLines(items: readonly PdfTextItem[]): string {
  const lines: string[] = [];
  let line = '';
  let prev: { y: number; end: number; size: number } | null = null;

  for (const item of items) {
    if (item.str === '') continue;
    const x = item.transform[4] ?? 0;
    const y = item.transform[5] ?? 0;
    const size = Math.hypot(item.transform[2] ?? 0, item.transform[3] ?? 0) || item.height || 1;
    if (prev) {
      // The larger font sets the line threshold (a superscript moves less than half of it); the smaller sets word gaps.
      const lineSize = Math.max(size, prev.size);
      const gapSize = Math.min(size, prev.size);
      const dy = y - prev.y;
      // Same baseline but far to the left: another column or cell printed later; it gets its own line.
      const wentBack = x < prev.end - lineSize * 2;
      if (Math.abs(dy) > lineSize * NEW_LINE_RATIO || wentBack) {
        lines.push(line);
        line = '';
        if (dy > lineSize || -dy > lineSize * PARAGRAPH_GAP_RATIO) lines.push('');
      } else if (x - prev.end > gapSize * WORD_GAP_RATIO && !/\s$/.test(line) && !/^\s/.test(item.str)) {
        line += ' ';
      }
    }
    line += item.str;
    prev = { y, end: x + item.width, size };
  }
  lines.push(line);
  return lines
    .map((l) => l.replace(/[ \t\u00a0]+/g, ' ').trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

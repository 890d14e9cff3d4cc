// The default chunker: markdown sections and paragraphs packed into ~1,000-character chunks with a word-aligned overlap.
import type { ExtractedPage } from '../types.js';
import { overlapTail, splitText } from './split-text.js';

/** Target chunk length in characters: about a paragraph or two, small enough to quote, big enough to mean something. */
export const DEFAULT_CHUNK_CHARS = 1_000;
/** Characters of the previous chunk repeated at the start of the next one in the same section, so a sentence cut by a boundary is whole in one of them. */
export const DEFAULT_CHUNK_OVERLAP_CHARS = 150;

/** One chunk of a document, before embedding. */
export interface TextChunk {
  text: string;
  /** Page the chunk comes from (chunks never span pages). */
  page: number;
}

export interface ChunkOptions {
  /** Longest chunk, in characters. Default 1,000. */
  maxChars?: number;
  /** Overlap between consecutive chunks of one section. Default 150; at most a third of maxChars. */
  overlapChars?: number;
}

interface Section {
  /** The heading line that opens the section (e.g. "## Results"), or '' for text before the first heading. */
  heading: string;
  paragraphs: string[];
}

const HEADING_LINE = /^\s{0,3}#{1,6}\s+\S/u;
const FENCE_LINE = /^\s{0,3}(```|~~~)/u;

/** Splits markdown into sections at headings and paragraphs at blank lines; fenced code stays one paragraph. */
function toSections(text: string): Section[] {
  const sections: Section[] = [{ heading: '', paragraphs: [] }];
  let paragraph: string[] = [];
  let inFence = false;
  const current = () => sections[sections.length - 1]!;
  const endParagraph = () => {
    const joined = paragraph.join('\n').trim();
    if (joined) current().paragraphs.push(joined);
    paragraph = [];
  };
  for (const line of splitLines(text)) {
    if (FENCE_LINE.test(line)) inFence = !inFence;
    if (!inFence && HEADING_LINE.test(line)) {
      endParagraph();
      sections.push({ heading: line.trim(), paragraphs: [] });
    } else if (!inFence && line.trim() === '') {
      endParagraph();
    } else {
      paragraph.push(line);
    }
  }
  endParagraph();
  return sections.filter((s) => s.heading || s.paragraphs.length > 0);
}

/** The lines of `text`, cut at LF or CRLF; extracted text has no CR left, and splitting at a plain '\n' is the cheaper. */
function splitLines(text: string): string[] {
  return text.includes('\r') ? text.split(/\r?\n/u) : text.split('\n');
}

function sectionText(section: Section): string {
  return [section.heading, ...section.paragraphs].filter(Boolean).join('\n\n');
}

/** Chunks of one page's text. */
function chunkPage(text: string, maxChars: number, overlapChars: number): string[] {
  const chunks: string[] = [];
  let current = '';
  const flush = () => {
    if (current.trim()) chunks.push(current.trim());
    current = '';
  };
  for (const section of toSections(text)) {
    const whole = sectionText(section);
    // Short sections share a chunk with their neighbours rather than making a chunk each.
    if (current.length + 2 + whole.length <= maxChars) {
      current = current ? `${current}\n\n${whole}` : whole;
      continue;
    }
    flush();
    if (whole.length <= maxChars) {
      current = whole;
      continue;
    }
    // A long section: pieces fit with room for the carried-over heading and overlap.
    const prefix = section.heading ? `${section.heading}\n\n` : '';
    const pieceLimit = Math.max(1, maxChars - overlapChars - prefix.length - 2);
    const pieces = section.paragraphs.flatMap((p) => splitText(p, pieceLimit));
    current = section.heading;
    for (const piece of pieces) {
      if (current && current.length + 2 + piece.length > maxChars) {
        const tail = overlapTail(current, overlapChars);
        flush();
        current = `${prefix}${tail}`.trim();
      }
      current = current ? `${current}\n\n${piece}` : piece;
    }
  }
  flush();
  return chunks;
}

/**
 * Structural chunking: each page is cut into markdown sections (headings) and paragraphs (blank lines), small
 * neighbours are packed together up to `maxChars`, and long sections are split at line, sentence, then word
 * boundaries with `overlapChars` repeated between consecutive chunks; a chunk continuing a section starts with its
 * heading again. Chunks never span pages and keep their page number. Deterministic; empty pages give no chunks.
 */
export function chunkStructural(
  pages: readonly ExtractedPage[],
  { maxChars = DEFAULT_CHUNK_CHARS, overlapChars = DEFAULT_CHUNK_OVERLAP_CHARS }: ChunkOptions = {},
): TextChunk[] {
  const limit = Math.max(50, Math.floor(maxChars));
  const overlap = Math.max(0, Math.min(Math.floor(overlapChars), Math.floor(limit / 3)));
  return pages.flatMap((page) => chunkPage(page.text, limit, overlap).map((text) => ({ text, page: page.page })));
}

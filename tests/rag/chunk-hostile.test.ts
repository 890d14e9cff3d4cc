// Chunking hostile text: runs of closing marks, deep indentation, no whitespace; every chunk within the limit and no text lost.
import { describe, expect, it } from 'vitest';
import { overlapTail, splitText } from '../../src/rag/chunk/split-text.js';
import { chunkStructural } from '../../src/rag/chunk/structural-chunker.js';
import { tidyPageText } from '../../src/rag/extract/parsed.js';
import { parseText } from '../../src/rag/extract/parse-text.js';
import { HOSTILE_DOCUMENTS } from '../fixtures/hostile-documents.js';

const squeeze = (text: string) => text.replace(/\s+/g, '');

describe('splitText on hostile runs', () => {
  it('cuts at sentence ends followed by closing marks, keeping every character', () => {
    const text = 'He said "stop." Then (twice!) she left.) And "so?" it went.';
    const pieces = splitText(text, 20);
    expect(pieces).toEqual(['He said "stop."', 'Then (twice!)', 'she left.)', 'And "so?" it went.']);
  });

  it.each(Object.keys(HOSTILE_DOCUMENTS).filter((n) => n.endsWith('.txt')))('splits %s into pieces within the limit, losing nothing', (name) => {
    const text = HOSTILE_DOCUMENTS[name]!();
    const pieces = splitText(text, 900);
    for (const piece of pieces) expect(piece.length).toBeLessThanOrEqual(900);
    expect(squeeze(pieces.join(''))).toBe(squeeze(text));
  });
});

describe('overlapTail', () => {
  it('starts the overlap after the first sentence end in the tail', () => {
    expect(overlapTail('First part here. Second sentence is the overlap', 38)).toBe('Second sentence is the overlap');
  });

  it('starts at a word when the tail holds only a run of closing marks', () => {
    expect(overlapTail(`x ${')'.repeat(500)} end`, 100)).toBe('end');
  });
});

describe('chunkStructural on hostile documents', () => {
  it.each(Object.keys(HOSTILE_DOCUMENTS).filter((n) => !n.endsWith('.html')))('chunks %s into chunks of at most 1,000 characters', (name) => {
    const parsed = parseText(name.endsWith('.json') ? 'json' : name.endsWith('.md') ? 'md' : name.endsWith('.csv') ? 'csv' : 'txt', new TextEncoder().encode(HOSTILE_DOCUMENTS[name]!()), name);
    if (!parsed.ok) {
      expect(parsed.reason).toBe('no_text');
      return;
    }
    const chunks = chunkStructural(parsed.pages.map((p) => ({ page: p.page, text: tidyPageText(p.text) })));
    expect(chunks.length).toBeGreaterThan(0);
    for (const chunk of chunks) expect(chunk.text.length).toBeLessThanOrEqual(1_000);
  });
});

describe('parseText for JSON', () => {
  it('pretty-prints ordinary JSON', () => {
    const parsed = parseText('json', new TextEncoder().encode('{"a":[1,2]}'), 'a.json');
    expect(parsed.ok && parsed.pages[0]!.text).toBe('{\n  "a": [\n    1,\n    2\n  ]\n}');
  });

  it('keeps deeply nested JSON compact instead of indenting it quadratically', () => {
    const text = HOSTILE_DOCUMENTS['deep-pretty.json']!();
    const parsed = parseText('json', new TextEncoder().encode(text), 'deep.json');
    expect(parsed.ok && parsed.pages[0]!.text.length).toBe(text.length);
  });
});

describe('tidyPageText', () => {
  it('drops spaces at line ends and squeezes blank lines, and is no slower on a long run of spaces', () => {
    expect(tidyPageText('a  \t\nb\n\n\n\nc \n')).toBe('a\nb\n\nc');
    expect(tidyPageText(`${' '.repeat(400_000)}x`)).toBe('x');
  });
});

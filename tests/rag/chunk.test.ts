// Structural chunking: sections, paragraphs, size limits, word-aligned overlap and page numbers.
import { describe, expect, it } from 'vitest';
import { chunkDocument, chunkerId } from '../../src/rag/chunk/chunk-document.js';
import { overlapTail, splitText } from '../../src/rag/chunk/split-text.js';
import { chunkStructural } from '../../src/rag/chunk/structural-chunker.js';

const sentence = (i: number) => `Sentence ${i} describes the pressure valve of engine number ${i}.`;
const longParagraph = Array.from({ length: 60 }, (_, i) => sentence(i)).join(' ');

describe('chunkStructural', () => {
  it('packs short sections together and keeps headings with their text', () => {
    const chunks = chunkStructural([{ page: 1, text: '# Title\n\nIntro.\n\n## Part\n\nA short part.' }]);
    expect(chunks).toEqual([{ page: 1, text: '# Title\n\nIntro.\n\n## Part\n\nA short part.' }]);
  });

  it('splits a long section into chunks of at most 1,000 characters that repeat the heading and overlap', () => {
    const chunks = chunkStructural([{ page: 3, text: `## Valves\n\n${longParagraph}` }]);
    expect(chunks.length).toBeGreaterThan(3);
    for (const chunk of chunks) {
      expect(chunk.text.length).toBeLessThanOrEqual(1_000);
      expect(chunk.text.startsWith('## Valves\n\n')).toBe(true);
      expect(chunk.page).toBe(3);
    }
    // Each chunk after the first starts with the end of the previous one, at a sentence start.
    for (let i = 1; i < chunks.length; i++) {
      const body = chunks[i]!.text.slice('## Valves\n\n'.length);
      const firstSentence = body.slice(0, body.indexOf('.') + 1);
      expect(firstSentence).toMatch(/^Sentence \d+ /);
      expect(chunks[i - 1]!.text).toContain(firstSentence);
    }
    // Nothing is lost: every sentence appears in some chunk.
    for (let i = 0; i < 60; i++) expect(chunks.some((c) => c.text.includes(sentence(i)))).toBe(true);
  });

  it('never splits inside a word when words fit', () => {
    const text = Array.from({ length: 400 }, (_, i) => `word${i}`).join(' ');
    const chunks = chunkStructural([{ page: 1, text }], { maxChars: 200, overlapChars: 30 });
    for (const chunk of chunks) {
      for (const token of chunk.text.split(/\s+/)) expect(token).toMatch(/^word\d+$/);
    }
    expect(chunks.some((c) => c.text.includes('word0 ')) && chunks.some((c) => c.text.endsWith('word399'))).toBe(true);
  });

  it('cuts a word longer than a chunk only because it must', () => {
    const chunks = chunkStructural([{ page: 1, text: 'x'.repeat(2_500) }]);
    expect(chunks.map((c) => c.text).join('')).toBe('x'.repeat(2_500));
    expect(chunks.every((c) => c.text.length <= 1_000)).toBe(true);
  });

  it('keeps each page separate with its page number and skips empty pages', () => {
    const chunks = chunkStructural([
      { page: 1, text: 'First page.' },
      { page: 2, text: '   \n\n ' },
      { page: 3, text: 'Third page.' },
    ]);
    expect(chunks).toEqual([
      { page: 1, text: 'First page.' },
      { page: 3, text: 'Third page.' },
    ]);
  });

  it('does not treat a # inside a fenced code block as a heading', () => {
    const text = '## Code\n\n```sh\n# not a heading\n\necho hi\n```';
    expect(chunkStructural([{ page: 1, text }])[0]!.text).toBe(text);
  });
});

describe('splitText and overlapTail', () => {
  it('prefers line ends, then sentence ends, then spaces', () => {
    expect(splitText('aaa bbb\nccc ddd', 8)).toEqual(['aaa bbb', 'ccc ddd']);
    expect(splitText('One two. Three four.', 10)).toEqual(['One two.', 'Three', 'four.']);
  });

  it('starts the overlap at a word or sentence start', () => {
    expect(overlapTail('alpha beta gamma delta', 8)).toBe('delta');
    expect(overlapTail('The end. A new sentence here', 22)).toBe('A new sentence here');
    expect(overlapTail('abc', 0)).toBe('');
  });
});

describe('chunkDocument', () => {
  it('chunks structurally by default and names its chunker', async () => {
    const { chunks, warnings } = await chunkDocument({ pages: [{ page: 1, text: 'Hello world.' }] });
    expect(chunks).toEqual([{ page: 1, text: 'Hello world.' }]);
    expect(warnings).toEqual([]);
    expect(chunkerId()).toBe('structural-1000-150');
    expect(chunkerId({ chunking: 'semantic', maxChars: 800 })).toBe('semantic-800-150');
  });

  it('falls back to structural chunking with a warning when semantic chunking has no LLM', async () => {
    const { chunks, warnings } = await chunkDocument({ pages: [{ page: 1, text: 'Hello world.' }], chunking: 'semantic' });
    expect(chunks).toHaveLength(1);
    expect(warnings[0]).toMatch(/needs an LLM/);
  });
});

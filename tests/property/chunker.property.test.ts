// Property: chunking any text keeps every chunk within its limit and loses no text; semantic chunking survives any LLM reply.
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { ScriptedLlm } from '../helpers/scripted-llm.js';
import { chunkSemantic, SEMANTIC_MAX_CALLS_PER_DOCUMENT } from '../../src/rag/chunk/semantic-chunker.js';
import { overlapTail, splitText } from '../../src/rag/chunk/split-text.js';
import { chunkStructural } from '../../src/rag/chunk/structural-chunker.js';
import { check, hostileText, RUNS, tallyLine } from './property-settings.js';

/**
 * Bound: texts of at most 2,000 tokens (~10 KB). Chunking is linear in the text: the properties below also bound
 * the output, whose size is at most the input plus, per chunk, its overlap and the repeated heading.
 */
const MAX_TOKENS = 2_000;

const CHUNK_TOKENS = [
  ')', ')))))', ']', '"', '”', '’', "'", '.', '. ', '.) ', '!', '?', '…', '。', ' ', '   ', '\n', '\n\n', '\t', '# ', '## Heading\n', '```\n', '~~~\n',
  'word ', 'a', 'longwordwithoutanyspaces', 'https://example.com/a/very/long/path?with=query&and=more', '\r\n', '\u00a0', '\u2028', '😀', 'é',
];

/** Every non-whitespace character of `text`, in order. */
const squeeze = (text: string): string => text.replace(/\s+/gu, '');

/** True when `needle` is a subsequence of `haystack` (one linear pass). */
function isSubsequence(needle: string, haystack: string): boolean {
  let i = 0;
  for (let j = 0; j < haystack.length && i < needle.length; j++) if (haystack[j] === needle[i]) i++;
  return i === needle.length;
}

const limits = fc.record({ maxChars: fc.integer({ min: 1, max: 2_000 }), overlapChars: fc.integer({ min: 0, max: 2_000 }) });

afterAll(() => console.log(`chunker properties: ${tallyLine()}`));

describe('splitText, property-based', () => {
  it('cuts any text into non-empty pieces within the limit that keep every non-space character in order', async () => {
    await check(
      'splitText',
      fc.property(hostileText(CHUNK_TOKENS, MAX_TOKENS), fc.integer({ min: 1, max: 1_500 }), (text, limit) => {
        const pieces = splitText(text, limit);
        for (const piece of pieces) {
          expect(piece.length).toBeGreaterThan(0);
          expect(piece.length).toBeLessThanOrEqual(limit);
        }
        expect(squeeze(pieces.join(''))).toBe(squeeze(text));
      }),
      RUNS.pure,
    );
  });

  it('takes an overlap that is a trimmed tail of the text and no longer than asked', async () => {
    await check(
      'overlapTail',
      fc.property(hostileText(CHUNK_TOKENS, 400), fc.integer({ min: 0, max: 600 }), (text, chars) => {
        const tail = overlapTail(text, chars);
        expect(tail.length).toBeLessThanOrEqual(Math.max(chars, 0));
        expect(text.trimEnd().endsWith(tail)).toBe(true);
      }),
      RUNS.pure,
    );
  });
});

describe('chunkStructural, property-based', () => {
  it('gives chunks within the limit, on their own page, losing no text, with output bounded by the input', async () => {
    await check(
      'chunkStructural',
      fc.property(fc.array(hostileText(CHUNK_TOKENS, MAX_TOKENS / 4), { minLength: 1, maxLength: 4 }), limits, (texts, { maxChars, overlapChars }) => {
        const pages = texts.map((text, i) => ({ page: i + 1, text }));
        const chunks = chunkStructural(pages, { maxChars, overlapChars });
        const limit = Math.max(50, maxChars);
        for (const chunk of chunks) {
          expect(chunk.text.length).toBeGreaterThan(0);
          expect(chunk.text.length).toBeLessThanOrEqual(limit);
        }
        for (const page of pages) {
          const own = chunks.filter((c) => c.page === page.page).map((c) => c.text).join('\n');
          expect(isSubsequence(squeeze(page.text), squeeze(own))).toBe(true);
        }
        // Each chunk repeats at most a third of the limit as overlap, plus its section heading (at most one line of the page).
        const input = texts.reduce((n, t) => n + t.length, 0);
        const output = chunks.reduce((n, c) => n + c.text.length, 0);
        expect(output).toBeLessThanOrEqual(input + chunks.length * (Math.floor(limit / 3) + limit));
      }),
      RUNS.pure,
    );
  });
});

describe('chunkSemantic, property-based', () => {
  it('never throws whatever the LLM replies (or if it fails), stays within the call cap, and keeps chunks within the limit', async () => {
    const reply = fc.oneof(fc.constantFrom('NOTHING', 'nothing.', 'one', '', '```', 'word word word'), fc.string({ maxLength: 200 }), fc.constant(null));
    await check(
      'chunkSemantic',
      fc.asyncProperty(hostileText(CHUNK_TOKENS, MAX_TOKENS), fc.array(reply, { minLength: 1, maxLength: 8 }), limits, async (text, replies, { maxChars, overlapChars }) => {
        const llm = new ScriptedLlm({
          turns: Array.from({ length: SEMANTIC_MAX_CALLS_PER_DOCUMENT + 1 }, (_, i) => () => {
            const r = replies[i % replies.length];
            if (r === null) throw new Error('the LLM is down');
            return r!;
          }),
        });
        const { chunks } = await chunkSemantic([{ page: 1, text }], { llm, maxChars, overlapChars });
        expect(llm.requests.length).toBeLessThanOrEqual(SEMANTIC_MAX_CALLS_PER_DOCUMENT + 1);
        for (const chunk of chunks) expect(chunk.text.length).toBeLessThanOrEqual(Math.max(50, maxChars));
      }),
      RUNS.slow * 2,
    );
  });
});

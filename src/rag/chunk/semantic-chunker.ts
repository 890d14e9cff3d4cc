// The original's LLM semantic splitting: windows of ~512 words, the LLM names where a second topic starts, topics become chunks.
import type { LlmClient } from '../../llm/types.js';
import { errorMessage } from '../../errors.js';
import type { ExtractedPage } from '../types.js';
import { chunkStructural, type ChunkOptions, type TextChunk } from './structural-chunker.js';

/** Words per LLM call, as in the original (WORD_LIMIT = 512). */
export const SEMANTIC_WINDOW_WORDS = 512;
/** Characters per LLM call, whatever the word count: bounds the prompt for texts of very long "words". */
export const SEMANTIC_WINDOW_MAX_CHARS = 6_000;
/** LLM calls per document; past this the document is chunked structurally (a 300-page PDF would cost hours). */
export const SEMANTIC_MAX_CALLS_PER_DOCUMENT = 64;
/** Words of the LLM's reply used to find where it starts in the window (the model may reflow or cut the rest). */
const ANCHOR_WORDS = 8;
/** Fewest anchor words trusted: shorter anchors could match the wrong place. */
const MIN_ANCHOR_WORDS = 3;

/** The original's segmenter prompt, with the window in place of {text}. */
function segmenterPrompt(text: string): string {
  return [
    'You are a markdown document segmenter.',
    '',
    'Here is a portion of a markdown document:',
    '',
    '---',
    text,
    '---',
    '',
    'If this chunk clearly contains **more than one distinct topic or section**, reply ONLY with the **second part**, starting from the first sentence or heading of the new topic.',
    '',
    "If it's only one topic, reply with NOTHING.",
    '',
    'Keep markdown formatting intact.',
  ].join('\n');
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/gu, '\\$&');
}

/**
 * Offset in `window` where the reply's first words appear (whitespace-insensitive), or -1. Tries the first 8 words,
 * then fewer (down to 3), since the reply's last word may be cut ("has…").
 */
function findSplit(window: string, reply: string): number {
  const words = reply.split(/\s+/u).filter(Boolean).slice(0, ANCHOR_WORDS);
  for (let n = words.length; n >= Math.min(MIN_ANCHOR_WORDS, words.length) && n > 0; n--) {
    const match = new RegExp(words.slice(0, n).map(escapeRegExp).join('\\s+'), 'u').exec(window);
    if (match) return match.index;
  }
  return -1;
}

/** End offset (exclusive) of the first `words` words of `text` from `start`, capped at `maxChars`. */
function windowEnd(text: string, start: number, words: number, maxChars: number): number {
  const pattern = /\S+/gu;
  pattern.lastIndex = start;
  let end = start;
  for (let count = 0; count < words; count++) {
    const match = pattern.exec(text);
    if (!match || match.index + match[0].length - start > maxChars) break;
    end = match.index + match[0].length;
  }
  // A single word longer than the cap: take the cap rather than loop without progress.
  return end > start ? end : Math.min(text.length, start + maxChars);
}

export interface SemanticChunkOptions extends ChunkOptions {
  llm: LlmClient;
}

/** Chunks plus warnings (why the document fell back to structural chunking, if it did). */
export interface SemanticChunkResult {
  chunks: TextChunk[];
  warnings: string[];
}

/**
 * Semantic chunking: each page is read in windows of 512 words (≤ 6,000 characters); the LLM replies with the part
 * that starts a new topic, or NOTHING; the text before that point becomes a topic and the rest is read again. Each
 * topic is then bounded to `maxChars` by the structural chunker, so chunks never mix topics and never grow past the
 * size the embedder expects. Any LLM failure, or more than 64 calls, makes the whole document fall back to
 * structural chunking with a warning; it never throws for an LLM problem.
 */
export async function chunkSemantic(
  pages: readonly ExtractedPage[],
  { llm, maxChars, overlapChars }: SemanticChunkOptions,
): Promise<SemanticChunkResult> {
  const structural = (warning: string): SemanticChunkResult => ({
    chunks: chunkStructural(pages, { maxChars, overlapChars }),
    warnings: [warning],
  });
  const topics: ExtractedPage[] = [];
  let calls = 0;
  for (const page of pages) {
    const text = page.text;
    let start = text.search(/\S/u);
    while (start >= 0 && start < text.length) {
      const end = windowEnd(text, start, SEMANTIC_WINDOW_WORDS, SEMANTIC_WINDOW_MAX_CHARS);
      const window = text.slice(start, end);
      if (++calls > SEMANTIC_MAX_CALLS_PER_DOCUMENT) {
        return structural(`semantic chunking stopped after ${SEMANTIC_MAX_CALLS_PER_DOCUMENT} LLM calls; chunked by structure instead`);
      }
      let reply: string;
      try {
        reply = (await llm.generate({ prompt: segmenterPrompt(window), temperature: 0 })).text.trim();
      } catch (err) {
        return structural(`semantic chunking failed (${errorMessage(err)}); chunked by structure instead`);
      }
      const split = /^(nothing|one)\.?$/iu.test(reply) ? -1 : findSplit(window, reply);
      // A split at 0 would make no progress; an unfound reply means the model rewrote the text: keep the window whole.
      const cut = split > 0 ? start + split : end;
      topics.push({ page: page.page, text: text.slice(start, cut) });
      const next = text.slice(cut).search(/\S/u);
      start = next < 0 ? -1 : cut + next;
    }
  }
  return { chunks: topics.flatMap((topic) => chunkStructural([topic], { maxChars, overlapChars })), warnings: [] };
}

// Picks the chunker for a document: structural by default, LLM semantic splitting when asked for and an LLM is given.
import type { LlmClient } from '../../llm/types.js';
import type { ExtractedPage } from '../types.js';
import { chunkSemantic } from './semantic-chunker.js';
import { chunkStructural, DEFAULT_CHUNK_CHARS, DEFAULT_CHUNK_OVERLAP_CHARS, type ChunkOptions, type TextChunk } from './structural-chunker.js';

/** The chunking modes of profiles.yaml `rag.chunking`. */
export type ChunkingMode = 'structural' | 'semantic';

export interface ChunkDocumentOptions extends ChunkOptions {
  pages: readonly ExtractedPage[];
  /** Default 'structural'. 'semantic' without `llm` is structural, with a warning. */
  chunking?: ChunkingMode;
  llm?: LlmClient;
}

/** Chunks of one document plus warnings for the user (semantic chunking that fell back). Never throws for LLM failures. */
export async function chunkDocument({
  pages,
  chunking = 'structural',
  llm,
  maxChars = DEFAULT_CHUNK_CHARS,
  overlapChars = DEFAULT_CHUNK_OVERLAP_CHARS,
}: ChunkDocumentOptions): Promise<{ chunks: TextChunk[]; warnings: string[] }> {
  if (chunking === 'semantic') {
    if (llm) return chunkSemantic(pages, { llm, maxChars, overlapChars });
    return { chunks: chunkStructural(pages, { maxChars, overlapChars }), warnings: ['semantic chunking needs an LLM; chunked by structure instead'] };
  }
  return { chunks: chunkStructural(pages, { maxChars, overlapChars }), warnings: [] };
}

/**
 * The chunker's identity as recorded in the index, e.g. `structural-1000-150`: a change means every document must
 * be chunked again, so the indexer rebuilds.
 */
export function chunkerId({ chunking = 'structural', maxChars = DEFAULT_CHUNK_CHARS, overlapChars = DEFAULT_CHUNK_OVERLAP_CHARS }: Omit<ChunkDocumentOptions, 'pages' | 'llm'> = {}): string {
  return `${chunking}-${maxChars}-${overlapChars}`;
}

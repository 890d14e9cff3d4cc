// Captions images with a vision LLM (Ollama or Gemini through LlmClient), using the original's caption prompt.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LlmClient } from '../../llm/types.js';
import { PROJECT_ROOT } from '../../paths.js';
import { CAPTION_MAX_OUTPUT_TOKENS } from './image-limits.js';
import type { ImageCaptioner } from './image-captioner.js';

/** The caption instruction, from the original: transcribe text-heavy images exactly, else write alt text. */
export const CAPTION_PROMPT_FILE = join(PROJECT_ROOT, 'prompts', 'image-caption.txt');

/** Reads the caption prompt (no placeholders: the image goes with it). */
export function readCaptionPrompt(file = CAPTION_PROMPT_FILE): string {
  return readFileSync(file, 'utf8').trim();
}

/**
 * A captioner that sends each image with the caption prompt to `llm` (Ollama: the chat message's `images`;
 * Gemini: an inline data part), answers capped at CAPTION_MAX_OUTPUT_TOKENS. Its id is `<provider>:<model>`.
 */
export function createVisionCaptioner(llm: LlmClient, { prompt = readCaptionPrompt() }: { prompt?: string } = {}): ImageCaptioner {
  return {
    id: `${llm.provider}:${llm.model}`,
    async caption(image, { signal }) {
      const result = await llm.generate({
        prompt,
        images: [{ mimeType: image.mimeType, data: image.data }],
        maxOutputTokens: CAPTION_MAX_OUTPUT_TOKENS,
        temperature: 0,
        signal,
      });
      return result.text;
    },
  };
}

// Picks how images are read: the configured vision model, else Tesseract when installed, else nothing.
import type { ModelConfig } from '../../config/models.js';
import { createLlmClient } from '../../llm/select.js';
import type { ImageCaptioner } from './image-captioner.js';
import { VISION_CALL_MAX_RETRIES, VISION_CALL_TIMEOUT_MS } from './image-limits.js';
import { createTesseractCaptioner, findTesseract } from './tesseract-captioner.js';
import { createVisionCaptioner } from './vision-captioner.js';

/**
 * The captioner for a vision model entry (its `model` must accept images: e.g. Ollama llava, qwen2.5vl, gemma3;
 * Gemini 2.x), with the per-image timeout VISION_CALL_TIMEOUT_MS unless the entry sets a shorter one; with no
 * model, Tesseract when `tesseract` is on PATH; else null (images are left out, with one warning per file).
 * @throws LlmUnavailableError (Gemini without a key), ConfigError (an unreadable Ollama host).
 */
export async function selectCaptioner(vision: ModelConfig | null, env: NodeJS.ProcessEnv): Promise<ImageCaptioner | null> {
  if (vision) {
    const config = { ...vision, timeout_ms: Math.min(vision.timeout_ms, VISION_CALL_TIMEOUT_MS), max_retries: Math.min(vision.max_retries, VISION_CALL_MAX_RETRIES) };
    return createVisionCaptioner(createLlmClient(config, env));
  }
  const tesseract = await findTesseract(env);
  return tesseract ? createTesseractCaptioner({ command: tesseract }) : null;
}

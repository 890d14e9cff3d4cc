// Ollama's context window: the model's length from /api/show, and a num_ctx sized to each prompt within it.
import { estimatePromptTokens } from './token-estimate.js';

/** Tokens kept for the answer when the request sets no maxOutputTokens: a long plan with some reasoning. */
export const DEFAULT_ANSWER_TOKENS = 2_048;
/** num_ctx grows in steps of this many tokens, so Ollama reloads the model only when a prompt crosses a step. */
export const NUM_CTX_STEP_TOKENS = 2_048;
/** Smallest num_ctx we send: the window of recent Ollama releases, so short prompts do not shrink it. */
export const MIN_NUM_CTX_TOKENS = 4_096;
/** Assumed context length when /api/show names none (old servers, some imported models). */
export const FALLBACK_CONTEXT_TOKENS = 8_192;

/** What a sized request sends and whether the prompt fits. */
export interface ContextSizing {
  numCtx: number;
  /** The estimated prompt tokens. */
  promptTokens: number;
  /** False when prompt + answer room is larger than the model's window: Ollama will drop the prompt's start. */
  fits: boolean;
}

/**
 * The num_ctx for a prompt: its estimated tokens plus room for the answer, rounded up to NUM_CTX_STEP_TOKENS,
 * at least MIN_NUM_CTX_TOKENS and at least `floor` (the window last used, so it never shrinks back and forth),
 * at most the model's `contextLength`.
 */
export function sizeNumCtx(options: { prompt: string; answerTokens?: number; contextLength: number; floor?: number }): ContextSizing {
  const { prompt, answerTokens = DEFAULT_ANSWER_TOKENS, contextLength, floor = 0 } = options;
  const promptTokens = estimatePromptTokens(prompt);
  const needed = promptTokens + answerTokens;
  const stepped = Math.ceil(needed / NUM_CTX_STEP_TOKENS) * NUM_CTX_STEP_TOKENS;
  const numCtx = Math.min(contextLength, Math.max(stepped, MIN_NUM_CTX_TOKENS, floor));
  return { numCtx, promptTokens, fits: needed <= contextLength };
}

/**
 * The context length in an /api/show answer: `model_info["<architecture>.context_length"]`
 * (the architecture from `general.architecture`), else any `*.context_length`; undefined when there is none.
 */
export function contextLengthOf(show: unknown): number | undefined {
  const raw = (show as { model_info?: unknown } | null)?.model_info;
  const info: Record<string, unknown> | undefined =
    raw instanceof Map ? Object.fromEntries(raw) : raw && typeof raw === 'object' ? (raw as Record<string, unknown>) : undefined;
  if (!info) return undefined;
  const arch = info['general.architecture'];
  const keyed = typeof arch === 'string' ? info[`${arch}.context_length`] : undefined;
  const value = isLength(keyed) ? keyed : Object.entries(info).find(([k, v]) => k.endsWith('.context_length') && isLength(v))?.[1];
  return isLength(value) ? value : undefined;
}

function isLength(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value > 0;
}

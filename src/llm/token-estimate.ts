// Token counts without a tokenizer: a conservative estimate for sizing windows, a rough one for progress.

/**
 * Bytes per token assumed when sizing a prompt. Llama, Qwen and Gemini tokenizers average about 4 characters
 * a token on English and 3 on code and JSON; 3 bytes a token over-counts both, so a window sized from it is
 * never too small for ordinary text.
 */
export const PROMPT_BYTES_PER_TOKEN = 3;
/** Characters per token for counting a reply as it streams (a display figure, not a limit). */
export const REPLY_CHARS_PER_TOKEN = 4;

/** At least as many tokens as `text` takes in the usual tokenizers (UTF-8 bytes / 3, rounded up). */
export function estimatePromptTokens(text: string): number {
  return Math.ceil(Buffer.byteLength(text, 'utf8') / PROMPT_BYTES_PER_TOKEN);
}

/** About how many tokens a streamed reply has so far (characters / 4). */
export function estimateReplyTokens(text: string): number {
  return Math.ceil(text.length / REPLY_CHARS_PER_TOKEN);
}

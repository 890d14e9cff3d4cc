// Turns session-memory items into a bounded text for prompts: earlier turns (summary and newest) and the tools that worked.
import { DEFAULT_CONVERSATION_CHARS, latestSummary, planConversation, renderConversation, turnsOf } from './conversation.js';
import type { MemoryItem } from './memory-item.js';

/** What the summary says when there is nothing to remember. */
export const EMPTY_MEMORY_SUMMARY = 'None: this is the first question of the session.';

/**
 * The session's earlier turns for a prompt: the model's summary of the older ones (compactConversation), the newest in
 * full within `maxChars`, and the tools that recently succeeded. Items of `excludeRunId` (the run in progress) are left
 * out: its own progress reaches the prompt through the query and the retry feedback.
 */
export function summariseMemory({
  items,
  recentSuccesses,
  excludeRunId,
  maxChars = DEFAULT_CONVERSATION_CHARS,
  withholdUntrusted = false,
}: {
  items: readonly MemoryItem[];
  recentSuccesses: string[];
  excludeRunId?: string;
  maxChars?: number;
  /** Strict mode: an answer drawn on outside content is not shown, only said to exist. */
  withholdUntrusted?: boolean;
}): string {
  const summary = latestSummary(items);
  const { shown, toSummarise } = planConversation(turnsOf(items, excludeRunId), summary, maxChars, withholdUntrusted);
  const toolsLine = recentSuccesses.length > 0 ? `Tools that worked recently: ${recentSuccesses.join(', ')}` : '';
  const text = [renderConversation(shown, summary, withholdUntrusted, toSummarise.length), toolsLine].filter((part) => part !== '').join('\n\n');
  return text === '' ? EMPTY_MEMORY_SUMMARY : text;
}

// Decision: fills the strategy's prompt (tools, task, step, memory, perception, retry feedback) and asks the LLM for solve().
import { SANDBOX_LIMITS } from '../config/limits.js';
import type { TokenUsage, LlmClient } from '../llm/types.js';
import type { ToolInfo } from '../mcp/types.js';
import { earlierResults, NO_FEEDBACK_TEXT, NO_TOOLS_TEXT, perceptionSummary, retryFeedback, stepStatus, type CarriedResult } from '../model-messages.js';
import { readReply, type PreparedCode } from '../reply/read-reply.js';
import { renderToolCatalogue } from '../sandbox/catalogue.js';
import { renderSkillCatalogue } from '../sandbox/plan-skills.js';
import type { PlanSkill } from '../sandbox/types.js';
import type { LlmCallInfo, LlmEventFrame } from './llm-call.js';
import type { Perception } from './perception.js';
import { DEFAULT_PROMPTS_DIR, renderPromptFile } from './render-prompt.js';
import { describeToday, systemClock, type Clock, type UserLocale } from './today.js';
import { DECISION_TEMPLATES, type StrategyName } from './strategy.js';
import { generateWholeReply } from './whole-reply.js';

/** Caps on what a retry prompt repeats from the failed attempt, so the prompt stays small. */
export const MAX_FEEDBACK_ERROR_CHARS = 2_000;
/** Caps on earlier steps' results in a prompt: the newest up to the first, each older one to the second (longer ones cut to their shape). */
export const MAX_NEWEST_RESULT_CHARS = 7_000;
export const MAX_OLDER_RESULT_CHARS = 1_000;
export const MAX_FEEDBACK_CODE_CHARS = 4_000;
export const MAX_FEEDBACK_LOG_CHARS = 1_000;

/** What the retry prompt tells the model about its failed attempt. */
export interface RetryFeedback {
  /** The sandbox error or the invalid-plan explanation, written for the model. */
  error: string;
  /** The model's previous reply (raw text). */
  reply: string;
  /** console.log lines of the failed run, if any. */
  logs?: string[];
}

/** The model's plan and how it was obtained. */
export interface Decision {
  /** The model's raw reply. */
  reply: string;
  /** The reply read as JavaScript to run, or why it cannot be run (src/reply/read-reply.ts). */
  prepared: PreparedCode;
  /** The rendered prompt, for tests and --verbose. */
  prompt: string;
  usage: TokenUsage;
  llm: LlmCallInfo;
}

/** Keeps the head of a text, saying how much was cut. */
export function truncateHead(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}\n[truncated: first ${max} of ${text.length} characters shown]`;
}

/** Keeps the tail (the end of a log is where the failure is). */
function truncateTail(text: string, max: number): string {
  return text.length <= max ? text : `[truncated: last ${max} of ${text.length} characters shown]\n${text.slice(-max)}`;
}

/** The feedback section of a retry prompt. */
export function renderFeedback(feedback: RetryFeedback | undefined): string {
  if (!feedback) return NO_FEEDBACK_TEXT;
  return retryFeedback({
    error: truncateHead(feedback.error, MAX_FEEDBACK_ERROR_CHARS),
    logs: truncateTail(feedback.logs?.join('\n') ?? '', MAX_FEEDBACK_LOG_CHARS),
    code: truncateHead(feedback.reply, MAX_FEEDBACK_CODE_CHARS),
  });
}

/**
 * Renders the strategy's decision prompt (DECISION_TEMPLATES) and asks the model for solve().
 * `catalogue` is the tools the code may call (exactly those: the sandbox gets the same list);
 * `earlierResults` are the results of the steps before this one, oldest first; `feedback` is set on a retry.
 * @throws the LLM client's error (LlmRequestError, LlmUnavailableError, or an abort) and
 * PromptError for a broken template: neither is the model's mistake, so neither costs a lifeline.
 */
export async function decide({
  llm,
  strategy,
  query,
  step,
  maxSteps,
  catalogue,
  memorySummary,
  perception,
  earlierResults: carried = [],
  skills = [],
  feedback,
  maxToolCalls = SANDBOX_LIMITS.maxToolCalls.default,
  promptsDir = DEFAULT_PROMPTS_DIR,
  signal,
  events,
  clock = systemClock,
  userLocale,
}: {
  llm: LlmClient;
  strategy: StrategyName;
  query: string;
  step: number;
  maxSteps: number;
  catalogue: ToolInfo[];
  memorySummary: string;
  perception: Pick<Perception, 'intent' | 'entities' | 'tool_hint' | 'fallback'>;
  earlierResults?: CarriedResult[];
  /** Saved plans the code may call (shown after the tools). */
  skills?: readonly PlanSkill[];
  feedback?: RetryFeedback;
  maxToolCalls?: number;
  promptsDir?: string;
  signal?: AbortSignal;
  /** Where the request's live events go. */
  events?: LlmEventFrame;
  /** Today's date for the prompt (default: the system clock). */
  clock?: Clock;
  /** The user's time zone and locale (default: the process's). */
  userLocale?: UserLocale;
}): Promise<Decision> {
  const prompt = await renderPromptFile(
    DECISION_TEMPLATES[strategy],
    {
      tool_catalogue: [catalogue.length ? renderToolCatalogue(catalogue) : NO_TOOLS_TEXT, renderSkillCatalogue(skills)].filter(Boolean).join('\n\n'),
      query,
      step_status: stepStatus({ step, maxSteps }),
      earlier_results: earlierResults({ results: carried, newestMax: MAX_NEWEST_RESULT_CHARS, olderMax: MAX_OLDER_RESULT_CHARS }),
      max_tool_calls: maxToolCalls,
      memory_summary: memorySummary,
      perception: perceptionSummary(perception),
      feedback: renderFeedback(feedback),
      today: describeToday(clock(), userLocale),
    },
    promptsDir,
  );
  // A reply cut off mid-code is continued rather than retried (generateWholeReply).
  const generation = await generateWholeReply(llm, { prompt, temperature: 0, signal }, events);
  if (!generation.ok) throw generation.error;
  const reply = generation.result.text;
  return { reply, prepared: readReply(reply), prompt, usage: generation.result.usage, llm: generation.call };
}

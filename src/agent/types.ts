// The agent loop's options, result (what `cortex ask --json` prints) and live events.
import type { SpendReport } from '../budget/budget-keeper.js';
import type { LlmClient } from '../llm/types.js';
import type { FlowPolicy } from '../policy/flow-guard.js';
import type { ApproveTool, ServerSummary, ToolCaller, ToolInfo } from '../mcp/types.js';
import type { SessionMemory } from '../memory/session-memory.js';
import type { Trace } from '../memory/trace.js';
import type { Embedder } from '../llm/types.js';
import type { AskPerson, PlanSkill, Sandbox, SandboxLimits, ToolCallRecord } from '../sandbox/types.js';
import type { StrategyName } from './strategy.js';

/** How a question's plans reach the servers (`caller`) and who is asked first (`approve`), as hooks may wrap them. */
export interface GuardedCalls {
  caller: ToolCaller;
  approve?: ApproveTool;
}

/** Collaborators and settings of one question. Everything is passed in, so tests hand in fakes. */
export interface AgentOptions {
  /** The user's question, as typed: the only text that names places the data may go to. */
  query: string;
  /** Text given with the question (piped to `cortex ask`): the model reads it, but it is labelled untrusted and private. */
  attached?: string;
  llm: LlmClient;
  /** Configured servers, for perception. */
  servers: ServerSummary[];
  /** Every tool the servers offer (live or cached); perception narrows them by server. */
  tools: ToolInfo[];
  /** Servers start in the background: called after perception, waits for the chosen servers only and returns their tools. */
  awaitTools?: (serverIds: string[], signal?: AbortSignal) => Promise<ToolInfo[]>;
  caller: ToolCaller;
  /** Asked before each call (the approval gate and the person behind it); the flow policy comes first when set. */
  approve?: ApproveTool;
  sandbox: Sandbox;
  sandboxLimits?: Partial<SandboxLimits>;
  strategy: StrategyName;
  /** profiles.yaml strategy.max_steps (1..MAX_STEPS_LIMIT). */
  maxSteps: number;
  /** profiles.yaml strategy.max_lifelines_per_step (0..MAX_LIFELINES_LIMIT): retries allowed per step. */
  maxLifelinesPerStep: number;
  memoryFallbackEnabled: boolean;
  memory: SessionMemory;
  trace: Trace;
  /** Live progress for the CLI's display. Must not throw. */
  onEvent?: (event: AgentEvent) => void;
  /** Aborting ends the run with status 'cancelled' (the REPL's Ctrl-C). */
  signal?: AbortSignal;
  /** Folder of the prompt templates; default PROJECT_ROOT/prompts. */
  promptsDir?: string;
  /** Earlier turns a prompt carries, in characters (profile memory.conversation_chars); older ones are summarised. */
  conversationChars?: number;
  /** Tools listed as having worked recently in the prompt (profile memory.recent_successes_limit; 0: none). */
  recentSuccessesLimit?: number;
  /** The data-flow policy every call of the question is checked against (src/policy); absent: none. */
  flowPolicy?: FlowPolicy;
  /**
   * Decorators put in front of the question's flow guard (hooks): what they change reaches the policy like any other
   * call. Called once per question with the guarded caller.
   */
  wrapCaller?: (guarded: GuardedCalls) => GuardedCalls;
  /** How a plan's `ask_user()` reaches the person (terminal, page, MCP client); absent: nobody to ask. */
  askUser?: AskPerson;
  /** Saved plans offered to plans as `skills.NAME(args)`, each when the plan may call all its servers. */
  skills?: readonly PlanSkill[];
  /** The profile's embedding model, fused into `mcp.search_tools` (absent: the word ranking alone). */
  toolEmbedder?: Embedder;
}

/** How one attempt ended. */
export type StepOutcome = 'final_answer' | 'further_processing' | 'invalid_plan' | 'sandbox_error';

/** One attempt (a step at a lifeline), as `--json` reports it. */
export interface AgentStepRecord {
  step: number;
  /** Lifelines left when this attempt started: max_lifelines_per_step on the first, 0 on the last. */
  lifeline: number;
  strategy: StrategyName;
  /** Server ids perception selected for this step. */
  servers: string[];
  /** The JavaScript that actually ran (the reply after extraction and normalisation); '' when the reply was refused before running. */
  code: string;
  /** The model's raw reply. */
  reply: string;
  outcome: StepOutcome;
  /** The error fed back to the model (sandbox error or invalid plan), else null. */
  error: string | null;
  /** The same failure in plain words for a person (one line), else null. */
  diagnosis: string | null;
  /** `server`: the server the call actually went to (absent for calls refused before reaching one). */
  tool_calls: Array<{ name: string; server?: string; args: unknown; ok: boolean; ms: number }>;
}

/** The result of runAgent: the `--json` object, plus `reason`. */
export interface AgentRunResult {
  /** 'cancelled' when the signal aborted the run. */
  status: 'answered' | 'gave_up' | 'cancelled';
  /** The text after FINAL_ANSWER:, trimmed; null unless answered. */
  answer: string | null;
  session_id: string;
  steps: AgentStepRecord[];
  usage: { prompt_tokens: number; completion_tokens: number };
  timings: { total_ms: number; llm_ms: number; sandbox_ms: number };
  /** For gave_up and cancelled: what happened and what was tried, for the user. Null when answered. */
  reason: string | null;
  /**
   * For the person, when the question read untrusted content (web pages, mail, documents): where from, and that such
   * text can mislead the model. Null when it read none, or when no data-flow policy watched the calls.
   */
  caution: string | null;
  /** What the question sent or wrote where after reading outside content or private data ("office.send_mail → alice@example.org"). */
  sent: string[];
  /** What the question and its session spent on the model, and the budget limits (set by the Runtime). */
  spend?: SpendReport;
}

/**
 * Progress events, in order: perceiving, perceived, then per attempt planning, running, tool calls, outcome;
 * each LLM request (perception's, each plan's) is framed by llm_start … llm_end with llm_text / llm_retry between;
 * last, once, `result` with what runAgent returned (the Runtime emits it, so every view ends on the same object).
 */
export type AgentEvent =
  | { type: 'perceiving'; step: number; maxSteps: number }
  | { type: 'perceived'; step: number; servers: string[]; fallback: boolean; reason?: string }
  | {
      type: 'planning';
      step: number;
      maxSteps: number;
      lifelinesLeft: number;
      strategy: StrategyName;
      /** Tools in the prompt's catalogue. */
      tools: string[];
      /** True when the memory fallback narrowed the catalogue. */
      narrowed: boolean;
    }
  | { type: 'running'; step: number; lifelinesLeft: number; /** The model's answer about to run. */ code: string }
  | { type: 'tool_call'; phase: 'start' | 'end'; step: number; record: ToolCallRecord }
  | {
      type: 'outcome';
      step: number;
      lifelinesLeft: number;
      outcome: StepOutcome;
      /** The answer, the result handed on, or the feedback written for the model (not for display on failure: use `diagnosis`). */
      detail: string;
      /** On failure: what went wrong, in plain words, one line, for a person. */
      diagnosis?: string;
      /** When the reply was refused before running: what the model said (reasoning removed, shortened). */
      said?: string;
    }
  | { type: 'llm_start'; stage: LlmStage; step: number; model: string; /** Estimated from the prompt's length. */ promptTokens: number }
  | { type: 'llm_text'; stage: LlmStage; step: number; delta: string; completionTokens: number }
  | { type: 'llm_retry'; stage: LlmStage; step: number; attempt: number; maxAttempts: number; reason: string; delayMs: number }
  | { type: 'llm_notice'; stage: LlmStage; step: number; message: string }
  | {
      type: 'llm_end';
      stage: LlmStage;
      step: number;
      model: string;
      promptTokens: number;
      completionTokens: number;
      latencyMs: number;
      /** Set when the request failed. */
      error?: string;
    }
  | { type: 'result'; result: AgentRunResult };

/** Which request of the pipeline an LLM event belongs to. */
export type LlmStage = 'perception' | 'decision';

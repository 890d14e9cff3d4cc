// How a Runtime is started: the command-line choices (model, session, strategy, recording) and what kind of run it serves.
import type { LlmClient } from '../llm/types.js';

export interface RuntimeOptions {
  /** `--model`: a models.yaml key, 'auto', or a provider model (ollama:NAME, gemini:NAME); else the profile's llm.text_generation. */
  model?: string;
  /** `--session`: continue this session instead of starting a new one. */
  session?: string;
  /** `--strategy`: overrides the profile's planning and exploration modes. */
  strategy?: string;
  /** `--yes`: run tools that need approval without asking. */
  yes?: boolean;
  /** `ask --record FILE`: write every LLM exchange of the run to FILE. */
  record?: string;
  /** The question `--record` notes in its file, so a replay for another question is refused. */
  recordQuestion?: string;
  /** `ask --replay FILE`: answer from a recording instead of an LLM. */
  replay?: string;
  /** Sandbox worker processes for questions answered at once (`cortex serve`, `cortex mcp`). Default 1. */
  sandboxWorkers?: number;
  /**
   * Start even when no LLM is reachable (`cortex serve`, `cortex mcp`): questions then fail with a "no LLM"
   * error, and each one looks for the LLM again. Default false: `ask` stops at once (the REPL opens and says so).
   */
  startWithoutLlm?: boolean;
  /** Start a server with a cached tool list only once a question needs it (`cortex ask`: one question). Default false. */
  lazyServers?: boolean;
  /** A client to use as it is (a saved plan's, `cortex skills run`): no model is looked up. */
  llm?: LlmClient;
  /** `--token-budget N`: tokens one question may spend (overrides the profile's budget.tokens_per_question). */
  tokenBudget?: number;
}

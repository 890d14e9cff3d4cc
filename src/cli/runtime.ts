// What a question needs, started once and shared by `cortex ask` and the REPL: LLM, servers, sandbox, memory.
import { runAgent } from '../agent/loop.js';
import { resolveStrategy, type StrategyName } from '../agent/strategy.js';
import type { AgentEvent, AgentRunResult } from '../agent/types.js';
import type { LoadedConfig } from '../config/load-config.js';
import { resolveTextModel } from '../llm/select.js';
import type { LlmClient } from '../llm/types.js';
import { MultiMcp } from '../mcp/multi-mcp.js';
import { SessionMemory } from '../memory/session-memory.js';
import { Trace } from '../memory/trace.js';
import { createSandbox } from '../sandbox/create-sandbox.js';
import type { Sandbox } from '../sandbox/types.js';
import type { Output } from './output.js';
import { multiOptions } from './servers-command.js';

export interface RuntimeOptions {
  /** `--model`: a models.yaml key or 'auto'; else the profile's llm.text_generation. */
  model?: string;
  /** `--session`: continue this session instead of starting a new one. */
  session?: string;
  /** `--strategy`: overrides the profile's planning and exploration modes. */
  strategy?: string;
}

export class Runtime {
  private constructor(
    private readonly config: LoadedConfig,
    readonly llm: LlmClient,
    private readonly multi: MultiMcp,
    private readonly sandbox: Sandbox,
    public memory: SessionMemory,
    private readonly strategy: StrategyName,
  ) {}

  /**
   * Picks the LLM first (so a missing one fails before anything starts), then starts the servers in the background:
   * a question waits only for the servers perception chose (cached tool lists stand in until then).
   * @throws LlmUnavailableError, ConfigError, UsageError (unknown strategy or session id).
   */
  static async start(config: LoadedConfig, options: RuntimeOptions, out: Output): Promise<Runtime> {
    const { profile } = config;
    const strategy = resolveStrategy({
      planningMode: profile.strategy.planning_mode,
      explorationMode: profile.strategy.exploration_mode,
      override: options.strategy,
    });
    const { key, client } = await resolveTextModel({
      setting: options.model ?? profile.llm.text_generation,
      models: config.models.models,
      modelsFile: config.modelsFile,
      env: process.env,
    });
    out.info(`model: ${key} (${client.provider} ${client.model})`);
    const memory = options.session
      ? await SessionMemory.open({ baseDir: config.paths.memory, sessionId: options.session })
      : SessionMemory.create({ baseDir: config.paths.memory });
    const multi = MultiMcp.launch(config.servers, { ...(await multiOptions(config)), onFailure: (_id, reason) => out.error(`warning: ${reason}`) });
    return new Runtime(config, client, multi, createSandbox(), memory, strategy);
  }

  /** Starts a fresh session (the REPL's `new`). */
  newSession(): void {
    this.memory = SessionMemory.create({ baseDir: this.config.paths.memory });
  }

  /** Answers one question. Never throws for the model's mistakes: they are in the result. */
  async ask(query: string, { onEvent, signal }: { onEvent?: (e: AgentEvent) => void; signal?: AbortSignal } = {}): Promise<AgentRunResult> {
    const { strategy: planning, sandbox } = this.config.profile;
    return runAgent({
      query,
      llm: this.llm,
      servers: this.multi.summaries(),
      tools: this.multi.listTools(),
      awaitTools: (serverIds, waitSignal) => this.multi.awaitTools(serverIds, waitSignal),
      caller: this.multi,
      sandbox: this.sandbox,
      sandboxLimits: {
        maxToolCalls: sandbox.max_tool_calls_per_plan,
        timeoutMs: sandbox.timeout_ms,
        memoryMb: sandbox.memory_mb,
        maxOutputChars: sandbox.max_output_chars,
        toolTimeoutMs: sandbox.tool_timeout_ms,
      },
      strategy: this.strategy,
      maxSteps: planning.max_steps,
      maxLifelinesPerStep: planning.max_lifelines_per_step,
      memoryFallbackEnabled: planning.memory_fallback_enabled,
      memory: this.memory,
      trace: new Trace(this.memory.tracePath),
      ...(onEvent ? { onEvent } : {}),
      ...(signal ? { signal } : {}),
    });
  }

  async close(): Promise<void> {
    await Promise.all([this.sandbox.close(), this.multi.close(), this.memory.flush().catch(() => undefined)]);
  }
}

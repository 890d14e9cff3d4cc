// What a question needs, started once and shared by `cortex ask` and the REPL: LLM, servers, sandbox, memory.
import { runAgent } from '../agent/loop.js';
import { resolveStrategy, type StrategyName } from '../agent/strategy.js';
import type { AgentEvent, AgentRunResult } from '../agent/types.js';
import type { LoadedConfig } from '../config/load-config.js';
import { UsageError } from '../errors.js';
import { recordingLlm, replayLlm } from '../llm/recording.js';
import { resolveTextModel } from '../llm/select.js';
import type { LlmClient } from '../llm/types.js';
import { createApprovalGate, withApproval, type AskUser } from '../mcp/approval-gate.js';
import { ownServerIds } from '../mcp/approval-policy.js';
import { MultiMcp } from '../mcp/multi-mcp.js';
import type { ToolCaller } from '../mcp/types.js';
import { SessionMemory } from '../memory/session-memory.js';
import { Trace } from '../memory/trace.js';
import { createSandbox } from '../sandbox/create-sandbox.js';
import type { Sandbox } from '../sandbox/types.js';
import type { Output } from './output.js';

export interface RuntimeOptions {
  /** `--model`: a models.yaml key or 'auto'; else the profile's llm.text_generation. */
  model?: string;
  /** `--session`: continue this session instead of starting a new one. */
  session?: string;
  /** `--strategy`: overrides the profile's planning and exploration modes. */
  strategy?: string;
  /** `--yes`: run tools that need approval without asking. */
  yes?: boolean;
  /** `ask --record FILE`: write every LLM exchange of the run to FILE. */
  record?: string;
  /** `ask --replay FILE`: answer from a recording instead of an LLM. */
  replay?: string;
}

/** How the runtime may reach the user; absent `ask` means nobody can approve a tool call. */
export interface RuntimeInteraction {
  ask?: AskUser;
}

export class Runtime {
  private constructor(
    private readonly config: LoadedConfig,
    readonly llm: LlmClient,
    private readonly multi: MultiMcp,
    /** The servers behind the approval gate, for the sandbox. */
    private readonly caller: ToolCaller,
    private readonly sandbox: Sandbox,
    public memory: SessionMemory,
    private readonly strategy: StrategyName,
  ) {}

  /**
   * Picks the LLM first (so a missing one fails before anything starts), then starts the servers.
   * @throws LlmUnavailableError, ConfigError, UsageError (unknown strategy or session id).
   */
  static async start(config: LoadedConfig, options: RuntimeOptions, out: Output, interaction: RuntimeInteraction = {}): Promise<Runtime> {
    const { profile } = config;
    const strategy = resolveStrategy({
      planningMode: profile.strategy.planning_mode,
      explorationMode: profile.strategy.exploration_mode,
      override: options.strategy,
    });
    const client = await Runtime.pickLlm(config, options, out);
    const memory = options.session
      ? await SessionMemory.open({ baseDir: config.paths.memory, sessionId: options.session })
      : SessionMemory.create({ baseDir: config.paths.memory });
    const multi = await MultiMcp.start(config.servers);
    for (const s of multi.statuses()) if (s.state === 'failed') out.error(`warning: ${s.error}`);
    const approve = createApprovalGate({
      policy: {
        require: profile.approvals.require,
        allow: profile.approvals.allow,
        allowAll: Boolean(options.yes),
        ownServers: ownServerIds(config.servers),
      },
      ...(interaction.ask ? { ask: interaction.ask } : {}),
    });
    return new Runtime(config, client, multi, withApproval(multi, approve), createSandbox(), memory, strategy);
  }

  /** The LLM: a replay of a recording (no LLM needed), else the configured model, recorded when asked. */
  private static async pickLlm(config: LoadedConfig, options: RuntimeOptions, out: Output): Promise<LlmClient> {
    if (options.record && options.replay) throw new UsageError('--record and --replay cannot be used together');
    if (options.replay) {
      const replay = replayLlm(options.replay);
      out.info(`model: replay of ${options.replay} (recorded from ${replay.model})`);
      return replay;
    }
    const { key, client } = await resolveTextModel({
      setting: options.model ?? config.profile.llm.text_generation,
      models: config.models.models,
      modelsFile: config.modelsFile,
      env: process.env,
    });
    out.info(`model: ${key} (${client.provider} ${client.model})`);
    return options.record ? recordingLlm(client, options.record) : client;
  }

  /** Starts a fresh session (the REPL's `new`). */
  newSession(): void {
    this.memory = SessionMemory.create({ baseDir: this.config.paths.memory });
  }

  /** Answers one question. Never throws for the model's mistakes: they are in the result. */
  async ask(query: string, { onEvent, signal }: { onEvent?: (e: AgentEvent) => void; signal?: AbortSignal } = {}): Promise<AgentRunResult> {
    const { strategy: planning, sandbox } = this.config.profile;
    const ready = new Set(this.multi.statuses().filter((s) => s.state === 'ready').map((s) => s.id));
    return runAgent({
      query,
      llm: this.llm,
      servers: this.config.servers.filter((s) => ready.has(s.id)).map(({ id, description, capabilities }) => ({ id, description, capabilities })),
      tools: this.multi.listTools(),
      caller: this.caller,
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

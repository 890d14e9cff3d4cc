// What a question needs, started once and shared by `cortex ask`, the REPL, `cortex serve` and `cortex mcp`: LLM, servers, sandbox, memory.
import { runAgent } from '../agent/loop.js';
import { resolveStrategy, type StrategyName } from '../agent/strategy.js';
import type { AgentEvent, AgentRunResult } from '../agent/types.js';
import type { LoadedConfig } from '../config/load-config.js';
import { LlmUnavailableError, SessionBusyError, SessionNotFoundError, UsageError } from '../errors.js';
import { recordingLlm, replayLlm } from '../llm/recording.js';
import { resolveTextModel } from '../llm/select.js';
import type { LlmClient } from '../llm/types.js';
import { approvalGateFor, withApproval, type ApprovalGate, type AskUser } from '../mcp/approval-gate.js';
import { ownServerIds } from '../mcp/approval-policy.js';
import type { Elicit } from '../mcp/elicitation.js';
import { ElicitationRouter } from '../mcp/elicitation-router.js';
import { MultiMcp, multiMcpOptions } from '../mcp/multi-mcp.js';
import { terminalElicit } from './terminal-elicit.js';
import { whileAsking } from './status-line.js';
import type { ServerStatus, ToolCaller } from '../mcp/types.js';
import { parseSessionId } from '../memory/memory-item.js';
import { SessionMemory } from '../memory/session-memory.js';
import { Trace } from '../memory/trace.js';
import { flowPolicyOf } from '../policy/flow-settings.js';
import { createSandbox } from '../sandbox/create-sandbox.js';
import { warmUpParser } from '../sandbox/parse-code.js';
import { createSandboxPool } from '../sandbox/sandbox-pool.js';
import type { Sandbox } from '../sandbox/types.js';
import type { Output } from './output.js';
import { pendingLlm } from './pending-llm.js';

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
  /** `ask --replay FILE`: answer from a recording instead of an LLM. */
  replay?: string;
  /** Sandbox worker processes for questions answered at once (`cortex serve`, `cortex mcp`). Default 1. */
  sandboxWorkers?: number;
  /**
   * Start even when no LLM is reachable (`cortex serve`, `cortex mcp`): questions then fail with a "no LLM"
   * error, and each one looks for the LLM again. Default false: `ask` and the REPL stop at once.
   */
  startWithoutLlm?: boolean;
  /** Start a server with a cached tool list only once a question needs it (`cortex ask`: one question). Default false. */
  lazyServers?: boolean;
}

/** How the runtime may reach the user; absent `ask` means nobody can approve a tool call. */
export interface RuntimeInteraction {
  ask?: AskUser;
}

/** Options of one Runtime.ask(). */
export interface AskOptions {
  /** Every agent event, ending with one `result` event. Must not throw. */
  onEvent?: (event: AgentEvent) => void;
  /** Aborting ends the run with status 'cancelled'. */
  signal?: AbortSignal;
  /**
   * Where to answer: 'new' (a new session), `{id}` (a saved session, read once no other question runs in it),
   * or by default the Runtime's own session (the REPL's).
   */
  session?: 'new' | { id: string };
  /** A strategy name overriding the Runtime's for this question. */
  strategy?: string;
  /**
   * Answers this question's servers' requests for input (`cortex serve`: the page streaming it). Absent: declined
   * with NOBODY_TO_ASK, unless the Runtime was started with a terminal (`interaction.ask`), which asks there.
   */
  elicit?: Elicit;
}

export class Runtime {
  private constructor(
    private readonly config: LoadedConfig,
    public llm: LlmClient,
    private readonly multi: MultiMcp,
    /** The servers behind the approval gate, for the sandbox. */
    private readonly caller: ToolCaller,
    private readonly sandbox: Sandbox,
    public memory: SessionMemory,
    private readonly strategy: StrategyName,
    /** The approval gate in front of `caller`: told when a question starts, so a "no" holds for one question. */
    private readonly gate: ApprovalGate,
    /** Sends each server's request for input to the question that caused it. */
    private readonly router: ElicitationRouter,
    /** Servers start when a question needs them (`cortex ask`), so the question prepares them itself: see run(). */
    private readonly lazy: boolean,
  ) {}

  /** Ids of sessions with a question running: one question at a time per session file. */
  private readonly busySessions = new Set<string>();

  /**
   * Picks the LLM first (so a missing one fails before anything starts), then starts the servers in the background:
   * a question waits only for the servers perception chose (cached tool lists stand in until then).
   * @throws LlmUnavailableError, ConfigError, UsageError (unknown strategy or session id).
   */
  static async start(config: LoadedConfig, options: RuntimeOptions, out: Output, interaction: RuntimeInteraction = {}): Promise<Runtime> {
    const { profile } = config;
    const strategy = strategyOf(profile, options.strategy);
    const client = await Runtime.pickLlm(config, options, out);
    const memory = options.session
      ? await SessionMemory.open({ baseDir: config.paths.memory, sessionId: options.session })
      : SessionMemory.create({ baseDir: config.paths.memory });
    const router = new ElicitationRouter();
    const multi = MultiMcp.launch(config.servers, {
      ...(await multiMcpOptions(config)),
      onFailure: (_id, reason) => out.error(`warning: ${reason}`),
      // A server's questions (elicitation) go to the person through the same line reader as approvals; without one,
      // to the question's own `elicit` (the page), else they are declined.
      elicit: interaction.ask ? whileAskingElicit(terminalElicit({ ask: interaction.ask, output: process.stderr })) : router.elicit,
      ...(options.lazyServers ? { lazy: true } : {}),
    });
    const approve = approvalGateFor(config, { yes: options.yes, ask: interaction.ask });
    const workers = options.sandboxWorkers ?? 1;
    const sandbox = workers > 1 ? createSandboxPool({ size: workers }) : createSandbox();
    // The worker process starts while the model answers, instead of after it.
    sandbox.prestart?.();
    return new Runtime(config, client, multi, withApproval(multi, approve), sandbox, memory, strategy, approve, router, Boolean(options.lazyServers));
  }

  /** The LLM: a replay of a recording (no LLM needed), else the configured model, recorded when asked. */
  private static async pickLlm(config: LoadedConfig, options: RuntimeOptions, out: Output): Promise<LlmClient> {
    if (options.record && options.replay) throw new UsageError('--record and --replay cannot be used together');
    if (options.replay) {
      const replay = replayLlm(options.replay);
      out.info(`model: replay of ${options.replay} (recorded from ${replay.model})`);
      return replay;
    }
    const connect = async () => {
      const { key, client, note } = await resolveTextModel({
        setting: options.model ?? config.profile.llm.text_generation,
        models: config.models.models,
        modelsFile: config.modelsFile,
        env: process.env,
      });
      out.info(`model: ${key} (${client.provider} ${client.model})`);
      return options.record ? recordingLlm(client, options.record) : client;
    };
    try {
      return await connect();
    } catch (err) {
      if (!(options.startWithoutLlm && err instanceof LlmUnavailableError)) throw err;
      out.error(`warning: ${err.message}\nStarting anyway: questions get a "no LLM" error until one is reachable.`);
      return pendingLlm(connect);
    }
  }

  /** Switches the text model for the questions that follow (the REPL's /model). @throws as start() does for `--model`. */
  async useModel(setting: string, out: Output): Promise<void> {
    this.llm = await Runtime.pickLlm(this.config, { model: setting }, out);
  }

  /** Starts a fresh session (the REPL's `new`). */
  newSession(): void {
    this.memory = SessionMemory.create({ baseDir: this.config.paths.memory });
  }

  /** The MCP servers' status and tools. */
  servers(): ServerStatus[] {
    return this.multi.statuses();
  }

  /**
   * Answers one question; emits its events through `onEvent`, the last being `{type: 'result'}`. Questions in
   * different sessions run side by side (servers shared, sandbox pooled); a saved session is read only after
   * taking its lock, so two questions never write one session file from different copies. Never throws for the
   * model's mistakes: they are in the result. @throws SessionBusyError when the session is answering another
   * question; SessionNotFoundError; UsageError for an unknown strategy or a malformed session id; MemoryError
   * for a corrupt session file; the LLM's errors (see runAgent).
   */
  async ask(query: string, { onEvent, signal, session: where, strategy, elicit }: AskOptions = {}): Promise<AgentRunResult> {
    const chosen = strategy === undefined ? this.strategy : strategyOf(this.config.profile, strategy);
    const { id, load } = this.sessionTarget(where);
    if (this.busySessions.has(id)) throw new SessionBusyError(id);
    this.busySessions.add(id);
    this.gate.newQuestion();
    let session: SessionMemory | undefined;
    let result: AgentRunResult;
    const routed = this.router.question(this.caller, elicit);
    try {
      session = await load();
      result = await this.run(query, session, chosen, routed.caller, onEvent, signal);
    } finally {
      routed.done();
      // The session's last write lands before another question may use it.
      await session?.flush().catch(() => undefined);
      this.busySessions.delete(id);
    }
    onEvent?.({ type: 'result', result });
    return result;
  }

  /** The session a question asks for: its id (locked first) and how to load it (a saved one is read only then). */
  private sessionTarget(where: AskOptions['session']): { id: string; load: () => Promise<SessionMemory> } {
    const baseDir = this.config.paths.memory;
    if (where === undefined || where === 'new') {
      const memory = where === 'new' ? SessionMemory.create({ baseDir }) : this.memory;
      return { id: memory.id, load: async () => memory };
    }
    const parsed = parseSessionId(where.id);
    if (!parsed) throw new UsageError(`"${where.id.slice(0, 80)}" is not a session id (expected e.g. 1718000000-a1b2c3; see \`cortex sessions\`)`);
    return {
      id: parsed.id,
      load: () =>
        SessionMemory.open({ baseDir, sessionId: parsed.id }).catch((err: unknown) => {
          throw err instanceof UsageError ? new SessionNotFoundError(parsed.id, { cause: err }) : err;
        }),
    };
  }

  private run(query: string, memory: SessionMemory, strategy: StrategyName, caller: ToolCaller, onEvent?: (e: AgentEvent) => void, signal?: AbortSignal): Promise<AgentRunResult> {
    // A long-running Runtime (REPL, serve, mcp) started every server at launch and loads the parser once.
    if (!this.lazy) return this.runAgent(query, memory, strategy, caller, onEvent, signal);
    // What the answer will need is prepared while the model is busy answering, not before its request goes out nor
    // after its answer: the reply parser once the first request is answered or streaming, and the servers perception
    // chose once the plan request is (their cached tool lists stood in for the prompt; see awaitTools below).
    let parserWarm = false;
    let chosen: string[] | undefined;
    const watch = (event: AgentEvent) => {
      const answering = event.type === 'llm_text' || event.type === 'llm_end';
      if (answering && !parserWarm) {
        parserWarm = true;
        setImmediate(warmUpParser);
      }
      if (event.type === 'perceived') chosen = event.servers;
      else if (answering && event.stage === 'decision' && chosen) {
        const servers = chosen;
        chosen = undefined;
        setImmediate(() => this.multi.prestart(servers));
      }
      onEvent?.(event);
    };
    return this.runAgent(query, memory, strategy, caller, watch, signal);
  }

  private runAgent(query: string, memory: SessionMemory, strategy: StrategyName, caller: ToolCaller, onEvent?: (e: AgentEvent) => void, signal?: AbortSignal): Promise<AgentRunResult> {
    const { strategy: planning, sandbox } = this.config.profile;
    return runAgent({
      query,
      llm: this.llm,
      servers: this.multi.summaries(),
      tools: this.multi.listTools(),
      // In `ask`, our own servers start in well under a second: the plan prompt uses their cached tools while they start.
      // Anyone else's may take long (up to start_timeout_ms), longer than a plan's clock, so the prompt waits for them.
      awaitTools: (serverIds, waitSignal) => this.multi.awaitTools(serverIds, waitSignal, this.lazy ? ownServerIds(this.config.servers) : undefined),
      caller,
      sandbox: this.sandbox,
      sandboxLimits: {
        maxToolCalls: sandbox.max_tool_calls_per_plan,
        timeoutMs: sandbox.timeout_ms,
        memoryMb: sandbox.memory_mb,
        maxOutputChars: sandbox.max_output_chars,
        toolTimeoutMs: sandbox.tool_timeout_ms,
      },
      strategy,
      maxSteps: planning.max_steps,
      maxLifelinesPerStep: planning.max_lifelines_per_step,
      memoryFallbackEnabled: planning.memory_fallback_enabled,
      flowPolicy: flowPolicyOf(this.config.profile, this.config.servers),
      memory,
      trace: new Trace(memory.tracePath),
      onEvent,
      ...(signal ? { signal } : {}),
    });
  }

  /** The MCP servers' prompts (`/prompt` in the REPL). */
  get mcp(): Pick<MultiMcp, 'listPrompts' | 'getPrompt'> {
    return this.multi;
  }

  async close(): Promise<void> {
    await Promise.all([this.sandbox.close(), this.multi.close(), this.memory.flush().catch(() => undefined)]);
  }
}

/** The profile's strategy, or `override` (a strategy name) when given. @throws UsageError for an unknown name. */
function strategyOf(profile: LoadedConfig['profile'], override: string | undefined): StrategyName {
  return resolveStrategy({ planningMode: profile.strategy.planning_mode, explorationMode: profile.strategy.exploration_mode, override });
}

/** A terminal form is asked whole with the status line stopped, so no spinner lands between its fields. */
function whileAskingElicit(elicit: Elicit): Elicit {
  return (request, options) => whileAsking(() => elicit(request, options));
}

// What a question needs, started once and shared by `cortex ask`, the REPL, `cortex serve` and `cortex mcp`: LLM, servers, sandbox, memory.
import { runAgent } from '../agent/loop.js';
import { resolveStrategy, type StrategyName } from '../agent/strategy.js';
import type { AgentEvent, AgentRunResult, GuardedCalls } from '../agent/types.js';
import type { LoadedConfig } from '../config/load-config.js';
import { SessionBusyError, SessionNotFoundError, UsageError } from '../errors.js';
import { askPersonFor } from '../ask-user/ask-person-via.js';
import { BudgetKeeper, budgetLimits, type Spent } from '../budget/budget-keeper.js';
import { shippedPrices } from '../config/budget-settings.js';
import { startTracing, type Tracing } from '../telemetry/tracing.js';
import { HookRunner } from '../hooks/hook-runner.js';
import { MAX_STOP_CONTINUATIONS, promptSubmitted, QuestionHooks, stopRequested } from '../hooks/question-hooks.js';
import type { LlmClient } from '../llm/types.js';
import { approvalGateFor, askingPerson, type ApprovalGate, type AskUser } from '../policy/approval-gate.js';
import { ownServerIds } from '../policy/approval-policy.js';
import { approvalByElicitation, type Elicit } from '../mcp/elicitation.js';
import { ElicitationRouter } from '../mcp/elicitation-router.js';
import { MultiMcp, multiMcpOptions } from '../mcp/multi-mcp.js';
import type { ApproveTool, ServerStatus, ToolCaller } from '../mcp/types.js';
import { parseSessionId } from '../memory/memory-item.js';
import { SessionMemory } from '../memory/session-memory.js';
import { Trace } from '../memory/trace.js';
import { flowPolicyOf } from '../policy/flow-settings.js';
import { readTrust, trustFileOf } from '../policy/trust-store.js';
import { createSandbox } from '../sandbox/create-sandbox.js';
import { warmUpParser } from '../reply/parse-code.js';
import { createSandboxPool } from '../sandbox/sandbox-pool.js';
import type { AskPerson, Sandbox } from '../sandbox/types.js';
import { planSkills } from '../skills/skill-file.js';
import type { Notices } from './notices.js';
import type { Embedder } from '../llm/types.js';
import { pickLlm } from './pick-llm.js';
import type { RuntimeOptions } from './runtime-options.js';

export type { RuntimeOptions };

/** How the runtime may reach the user; absent `ask` means nobody can approve a tool call. */
export interface RuntimeInteraction {
  ask?: AskUser;
  /** How servers' requests for input are answered at that terminal (cli/terminal-elicit.ts). */
  elicit?: Elicit;
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
  /** Text given with the question (piped in): the model reads it; it is labelled untrusted and private and names no place. */
  attached?: string;
  /** A strategy name overriding the Runtime's for this question. */
  strategy?: string;
  /**
   * Answers this question's servers' requests for input (`cortex serve`: the page streaming it). Absent: declined
   * with NOBODY_TO_ASK, unless the Runtime was started with a terminal (`interaction.ask`), which asks there.
   */
  elicit?: Elicit;
  /** Answers with this client instead of the Runtime's model (a saved plan's, for `cortex mcp`'s skill tools). */
  llm?: LlmClient;
}

/** The question as typed, and the text given with it. */
interface Question {
  query: string;
  attached?: string;
}

/** How one question's plans reach the servers: the caller, and who is asked before each call. */
interface QuestionCalls {
  caller: ToolCaller;
  approve: ApproveTool;
}

export class Runtime {
  private constructor(
    private readonly config: LoadedConfig,
    public llm: LlmClient,
    private readonly multi: MultiMcp,
    private readonly sandbox: Sandbox,
    public memory: SessionMemory,
    private readonly strategy: StrategyName,
    /** The approval gate in front of `caller`: told when a question starts, so a "no" holds for one question. */
    private readonly gate: ApprovalGate,
    /** Sends each server's request for input to the question that caused it. */
    private readonly router: ElicitationRouter,
    /** Servers start when a question needs them (`cortex ask`), so the question prepares them itself: see run(). */
    private readonly lazy: boolean,
    /** The profile's hooks (null: none configured), and where what they do is told to the person. */
    private readonly hooks: HookRunner | null,
    private readonly notify: (message: string) => void,
    /** The session's terminal line reader (the REPL, `ask` on a TTY); absent: no terminal. */
    private readonly terminal: AskUser | undefined,
    /** Counts what questions and sessions spend on the model, against the budget limits. */
    private readonly budget: BudgetKeeper,
    /** OpenTelemetry traces, when OTEL_EXPORTER_OTLP_ENDPOINT is set; else null (nothing of it loaded). */
    private readonly tracing: Tracing | null,
  ) {}

  /** Ids of sessions with a question running: one question at a time per session file. */
  private readonly busySessions = new Set<string>();

  /**
   * Picks the LLM first (so a missing one fails before anything starts), then starts the servers in the background:
   * a question waits only for the servers perception chose (cached tool lists stand in until then).
   * @throws LlmUnavailableError, ConfigError, UsageError (unknown strategy or session id).
   */
  static async start(config: LoadedConfig, options: RuntimeOptions, out: Notices, interaction: RuntimeInteraction = {}): Promise<Runtime> {
    const { profile } = config;
    const strategy = strategyOf(profile, options.strategy);
    const client = await pickLlm(config, options, out);
    const memory = options.session
      ? await SessionMemory.open({ baseDir: config.paths.memory, sessionId: options.session })
      : SessionMemory.create({ baseDir: config.paths.memory });
    const router = new ElicitationRouter();
    const multi = MultiMcp.launch(config.servers, {
      ...(await multiMcpOptions(config)),
      onFailure: (_id, reason) => out.error(`warning: ${reason}`),
      // A server that went away is brought back with growing waits; the person sees where it stands.
      onServerState: (event) =>
        out.error(event.state === 'ready' ? `note: server ${event.server} is back` : `note: server ${event.server} is down (${event.reconnect.error}); ${event.reconnect.retryInMs > 0 ? `trying again in ${Math.ceil(event.reconnect.retryInMs / 1000)} s` : 'restarting it'}`),
      // A server's questions (elicitation) go to the person through the same line reader as approvals; without one,
      // to the question's own `elicit` (the page), else they are declined.
      elicit: interaction.elicit ?? router.elicit,
      ...(options.lazyServers ? { lazy: true } : {}),
    });
    const approve = approvalGateFor(config, { yes: options.yes, ask: interaction.ask });
    const workers = options.sandboxWorkers ?? 1;
    const sandbox = workers > 1 ? createSandboxPool({ size: workers }) : createSandbox();
    // The worker process starts while the model answers, instead of after it.
    sandbox.prestart?.();
    const notify = (message: string) => out.error(message);
    const hooks = Object.keys(profile.hooks).length > 0
      ? new HookRunner({ settings: profile.hooks, cwd: process.cwd(), onWarning: (m) => notify(`warning: ${m}`), onNotice: notify })
      : null;
    const runtime = new Runtime(config, client, multi, sandbox, memory, strategy, approve, router, Boolean(options.lazyServers), hooks, notify, interaction.ask, budgetKeeper(config, options), await startTracing(process.env));
    runtime.loadToolEmbedder();
    return runtime;
  }

  /** The profile's embedding model for `mcp.search_tools`, once its probe has answered (no question waits for it). */
  private toolEmbedder: Embedder | undefined;

  /** Starts loading the embedding model the profile names, if any; on failure tool search keeps to its word ranking. */
  private loadToolEmbedder(): void {
    const setting = this.config.profile.llm.embedding;
    if (setting === 'builtin') return;
    void import('../rag/index-folder.js')
      .then(({ profileEmbedder }) => profileEmbedder(this.config, process.env))
      .then((embedder) => (this.toolEmbedder = embedder), () => undefined);
  }

  /** Switches the text model for the questions that follow (the REPL's /model). @throws as start() does for `--model`. */
  async useModel(setting: string, out: Notices): Promise<void> {
    this.llm = await pickLlm(this.config, { model: setting }, out);
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
  async ask(query: string, { onEvent, signal, session: where, strategy, elicit, attached, llm }: AskOptions = {}): Promise<AgentRunResult> {
    const chosen = strategy === undefined ? this.strategy : strategyOf(this.config.profile, strategy);
    const { id, load } = this.sessionTarget(where);
    if (this.busySessions.has(id)) throw new SessionBusyError(id);
    this.busySessions.add(id);
    this.gate.newQuestion();
    let session: SessionMemory | undefined;
    let result: AgentRunResult;
    const routed = this.router.question(this.multi, elicit);
    // Approvals this question needs are asked of its own person too (the session may have nobody to ask).
    const approve = elicit ? askingPerson(this.gate, approvalByElicitation(elicit)) : this.gate;
    const traced = this.tracing?.question({ sessionId: id });
    const events = traced
      ? (event: AgentEvent) => {
          traced.onEvent(event);
          onEvent?.(event);
        }
      : onEvent;
    try {
      session = await load();
      const calls = { caller: traced ? traced.caller(routed.caller) : routed.caller, approve };
      result = await this.answer({ query, ...(attached ? { attached } : {}) }, session, chosen, calls, events, signal, elicit, llm);
      traced?.end({ result });
    } catch (err) {
      traced?.end({ error: err });
      throw err;
    } finally {
      routed.done();
      // The session's last write lands before another question may use it.
      await session?.flush().catch(() => undefined);
      this.busySessions.delete(id);
    }
    onEvent?.({ type: 'result', result });
    return result;
  }

  /** Runs the question, between its UserPromptSubmit and Stop hooks when there are any. */
  private async answer(question: Question, session: SessionMemory, strategy: StrategyName, calls: QuestionCalls, onEvent: ((e: AgentEvent) => void) | undefined, signal: AbortSignal | undefined, elicit: Elicit | undefined, llm?: LlmClient): Promise<AgentRunResult> {
    const { query } = question;
    const runner = this.hooks;
    // A plan's ask_user() goes where approvals go: the terminal, else the question's own person (page, MCP client).
    const askUser = askPersonFor({ terminal: this.terminal, elicit });
    const spent = this.budget.newQuestion();
    // A session with nothing in it yet has spent nothing (a question's first write comes before its first request), so
    // a new one's trace is not looked for.
    if (session.items.length > 0) await this.budget.loadSession(session.id, session.tracePath, llm ?? this.llm);
    const base: QuestionExtras = { spent, ...(askUser ? { askUser } : {}), ...(llm ? { llm } : {}) };
    const withSpend = (result: AgentRunResult): AgentRunResult => ({ ...result, spend: this.budget.report(spent, session.id) });
    if (!runner) return withSpend(await this.run(question, session, strategy, calls, onEvent, signal, base));
    const hooks = new QuestionHooks({ runner, sessionId: session.id, question: query, notify: this.notify, ...(signal ? { signal } : {}) });
    const blocked = await promptSubmitted(hooks, runner, session.id, query, signal);
    if (blocked) return withSpend(stoppedBeforeStart(session.id, `A hook stopped the question: ${blocked}`));
    let result = await this.run(question, session, strategy, calls, onEvent, signal, { ...base, hooks });
    for (let again = 0; again < MAX_STOP_CONTINUATIONS && result.status !== 'cancelled'; again++) {
      const reason = await stopRequested(hooks, runner, { sessionId: session.id, question: query, status: result.status, answer: result.answer, active: again > 0, ...(signal ? { signal } : {}) });
      if (!reason) break;
      this.notify(`A hook asked to keep working: ${reason}`);
      result = await this.run(question, session, strategy, calls, onEvent, signal, { ...base, hooks });
    }
    return withSpend(result);
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

  private run(query: Question, memory: SessionMemory, strategy: StrategyName, calls: QuestionCalls, onEvent?: (e: AgentEvent) => void, signal?: AbortSignal, extras: QuestionExtras = {}): Promise<AgentRunResult> {
    // A long-running Runtime (REPL, serve, mcp) started every server at launch and loads the parser once.
    if (!this.lazy) return this.runAgent(query, memory, strategy, calls, onEvent, signal, extras);
    // What the answer will need is prepared while the model is busy, never between a request and the work it waits on:
    // the servers perception chose as soon as it has chosen, so they start while the plan is written (their cached tool
    // lists stood in for the prompt; see awaitTools below), and the reply parser once the plan request is answering.
    let parserWarm = false;
    const watch = (event: AgentEvent) => {
      const answering = (event.type === 'llm_text' || event.type === 'llm_end') && event.stage === 'decision';
      if (answering && !parserWarm) {
        parserWarm = true;
        setImmediate(warmUpParser);
      }
      // The client code loads while perception's request is out, so the servers it chooses are launched at once.
      if (event.type === 'llm_start' && event.stage === 'perception') setImmediate(() => this.multi.warmUp());
      if (event.type === 'perceived') this.multi.prestart(event.servers);
      onEvent?.(event);
    };
    return this.runAgent(query, memory, strategy, calls, watch, signal, extras);
  }

  private async runAgent({ query, attached }: Question, memory: SessionMemory, strategy: StrategyName, { caller, approve }: QuestionCalls, onEvent?: (e: AgentEvent) => void, signal?: AbortSignal, extras: QuestionExtras = {}): Promise<AgentRunResult> {
    const { strategy: planning, sandbox } = this.config.profile;
    const { hooks, askUser, spent } = extras;
    const model = extras.llm ?? this.llm;
    const counted = spent ? this.budget.wrap(model, spent, memory.id) : model;
    // Read for each question, side by side: `cortex servers trust`, a person's "always" and a new skill count from the next one.
    const [skills, trust] = await Promise.all([planSkills(this.config.paths.skills), readTrust(trustFileOf(this.config.profileFile))]);
    return runAgent({
      query,
      ...(attached ? { attached } : {}),
      llm: hooks ? hooks.llm(counted) : counted,
      ...(hooks ? { wrapCaller: (guarded: GuardedCalls) => hooks.wrap(guarded) } : {}),
      ...(askUser ? { askUser } : {}),
      skills,
      ...(this.toolEmbedder ? { toolEmbedder: this.toolEmbedder } : {}),
      servers: this.multi.summaries(),
      tools: this.multi.listTools(),
      // In `ask`, our own servers start in well under a second: the plan prompt uses their cached tools while they start.
      // Anyone else's may take long (up to start_timeout_ms), longer than a plan's clock, so the prompt waits for them.
      awaitTools: (serverIds, waitSignal) => this.multi.awaitTools(serverIds, waitSignal, this.lazy ? ownServerIds(this.config.servers) : undefined),
      caller,
      approve,
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
      conversationChars: this.config.profile.memory.conversation_chars,
      recentSuccessesLimit: this.config.profile.memory.recent_successes_limit,
      flowPolicy: flowPolicyOf(this.config.profile, this.config.servers, trust),
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
    await Promise.all([this.sandbox.close(), this.multi.close(), this.memory.flush().catch(() => undefined), this.tracing?.shutdown()]);
  }
}

/** What a question carries beyond the Runtime's own: its hooks and how its plans ask the person. */
interface QuestionExtras {
  /** The model of this question when not the Runtime's. */
  llm?: LlmClient;
  /** What the question spent so far (kept across a Stop hook's re-runs). */
  spent?: Spent;
  hooks?: QuestionHooks;
  askUser?: AskPerson;
}

/** The budget of a Runtime: the profile's limits (`--token-budget` over tokens_per_question) and prices. */
function budgetKeeper(config: LoadedConfig, options: RuntimeOptions): BudgetKeeper {
  const { budget } = config.profile;
  return new BudgetKeeper(budgetLimits(budget, options.tokenBudget), { ...shippedPrices(), ...budget.prices });
}

/** The result of a question a hook stopped before it started: nothing ran, nothing was spent. */
function stoppedBeforeStart(sessionId: string, reason: string): AgentRunResult {
  return { status: 'gave_up', answer: null, session_id: sessionId, steps: [], usage: { prompt_tokens: 0, completion_tokens: 0 }, timings: { total_ms: 0, llm_ms: 0, sandbox_ms: 0 }, reason, caution: null, sent: [] };
}

/** The profile's strategy, or `override` (a strategy name) when given. @throws UsageError for an unknown name. */
function strategyOf(profile: LoadedConfig['profile'], override: string | undefined): StrategyName {
  return resolveStrategy({ planningMode: profile.strategy.planning_mode, explorationMode: profile.strategy.exploration_mode, override });
}

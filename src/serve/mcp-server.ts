// Cortex-R as an MCP server (SDK v2, both protocol eras): `ask` and the saved plans (`skill_<name>`), answered by the
// shared Runtime, with progress notifications for agent events and input_required results for questions to the user.
import { randomBytes } from 'node:crypto';
import {
  CLIENT_CAPABILITIES_META_KEY,
  createRequestStateCodec,
  inputRequired,
  McpServer,
  type CallToolResult,
  type ClientCapabilities,
  type InputRequiredResult,
  type McpServerFactory,
  type RequestStateCodec,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import { describeEvent } from '../runtime/describe-event.js';
import type { AskOptions, Runtime } from '../runtime/runtime.js';
import { errorMessage } from '../errors.js';
import { MAX_ELICITATION_WAIT_MS, type Elicit } from '../mcp/elicitation.js';
import { savedPlanLlm, skillArguments, skillQuestion } from '../skills/saved-plan-llm.js';
import type { Skill } from '../skills/skill-file.js';
import { VERSION } from '../version.js';
import { MAX_QUESTION_CHARS } from './ask-route.js';
import { answerFrom, CANNOT_OPEN_LINKS, clientAsking, inputRequestFor } from './mcp-elicit.js';
import { QuestionRun } from './mcp/question-run.js';
import { QuestionSlots } from './question-slots.js';

/** Server name reported in the MCP initialize handshake and server/discover. */
export const CORTEX_MCP_SERVER_NAME = 'cortex-r';
/**
 * Questions one tool call may put to its client before it is stopped: a plan asking its user more often than this is
 * stuck in a loop (each question is one input_required round on 2026, one elicitation/create before).
 */
export const MAX_INPUT_ROUNDS_PER_CALL = 32;
/** How long a client may cache the tool list: it is fixed while the server runs, but skills are re-read at start. */
export const TOOL_LIST_CACHE_TTL_MS = 60_000;

/** The JSON Schema key naming the header a tool argument is mirrored into (SEP-2243), and our one such argument. */
const X_MCP_HEADER = 'x-mcp-header';
export const SESSION_HEADER_NAME = 'Session-Id';

type RunResult = Awaited<ReturnType<Runtime['ask']>>;
/** What requestState carries between rounds: the run, and the questions that round asked. */
interface RoundState {
  run: string;
  asked: string[];
}

const outputSchema = {
  status: z.enum(['answered', 'gave_up', 'cancelled']).describe('answered, gave_up (steps and retries ran out) or cancelled'),
  answer: z.string().nullable().describe('The answer; null unless answered'),
  session_id: z.string().describe('Pass it back as session_id to ask a follow-up in the same session'),
  steps: z.array(z.looseObject({ step: z.number(), outcome: z.string() })).describe('Each attempt: servers, code, tool calls, outcome'),
  caution: z.string().nullable().describe('When the answer drew on web pages, mail or documents: where from, and that such text can mislead the model'),
  sent: z.array(z.string()).describe('What the question sent or wrote where after reading outside content or private data'),
};

function errorResult(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}

/** What every server instance shares: the runtime, the question slots, the questions waiting for their client. */
export interface CortexMcpService {
  /** A fresh McpServer for one connection (stdio) or one request (HTTP); the SDK's entries call it. */
  factory: McpServerFactory;
  /** Cancels every question still running or waiting. */
  close(): Promise<void>;
}

/**
 * The service behind `cortex mcp`: `ask {question, session_id?}`, and `skill_<name>` for each saved plan (run with no
 * model). When a request carries a progressToken, each agent event is sent as notifications/progress (message: the
 * terminal display's text; `_meta['cortex-r/event']`: the event). At most `maxConcurrent` questions run at once;
 * cancelling the request cancels the question. A question for the user becomes an input_required result; the
 * client's retry carries the answer (on 2025 connections the SDK asks with elicitation/create instead).
 */
export function cortexMcpService({ runtime, maxConcurrent, skills = [] }: { runtime: Runtime; maxConcurrent: number; skills?: Skill[] }): CortexMcpService {
  const shared: Shared = {
    runtime,
    slots: new QuestionSlots(maxConcurrent),
    runs: new Map(),
    codec: createRequestStateCodec<RoundState>({ key: randomBytes(32), ttlSeconds: MAX_ELICITATION_WAIT_MS / 1000 }),
  };
  return {
    factory: () => buildServer(shared, skills),
    close: async () => {
      const runs = [...shared.runs.values()];
      for (const run of runs) run.cancel();
      await Promise.all(runs.map((run) => run.ended));
    },
  };
}

interface Shared {
  runtime: Runtime;
  slots: QuestionSlots;
  runs: Map<string, QuestionRun<RunResult>>;
  codec: RequestStateCodec<RoundState>;
}

function buildServer(shared: Shared, skills: Skill[]): McpServer {
  const server = new McpServer(
    { name: CORTEX_MCP_SERVER_NAME, title: 'Cortex-R', version: VERSION },
    {
      capabilities: { tools: {} },
      cacheHints: { 'tools/list': { ttlMs: TOOL_LIST_CACHE_TTL_MS, cacheScope: 'private' } },
      inputRequired: { maxRounds: MAX_INPUT_ROUNDS_PER_CALL, roundTimeoutMs: MAX_ELICITATION_WAIT_MS },
      requestState: { verify: (state, ctx) => shared.codec.verify(state, ctx) },
    },
  );
  server.registerTool(
    'ask',
    {
      title: 'Ask Cortex-R',
      description:
        'Answers a question by having an LLM write JavaScript that calls tools (arithmetic, the user\'s indexed documents, web search) ' +
        'in a sandbox, over several steps when needed. Returns the answer and the steps taken. Pass session_id from an earlier ' +
        'answer to continue that conversation.',
      inputSchema: z.object({
        question: z.string().min(1).max(MAX_QUESTION_CHARS).describe('The question, in natural language'),
        // Mirrored into an Mcp-Param-Session-Id header on HTTP (SEP-2243): a proxy can route a follow-up by session.
        session_id: z.string().optional().describe('Continue this session (from an earlier answer\'s session_id)').meta({ [X_MCP_HEADER]: SESSION_HEADER_NAME }),
      }),
      outputSchema: z.object(outputSchema),
      annotations: { readOnlyHint: false, openWorldHint: true },
    },
    async ({ question, session_id }, ctx) =>
      answerCall(shared, server, question, { session: session_id === undefined ? 'new' : { id: session_id } }, ctx),
  );
  for (const skill of skills) registerSkill(shared, server, skill);
  return server;
}

/**
 * Answers one round of a tool call: starts the question (first round) or hands the client's answers to the waiting
 * one (a retry with requestState), then waits for its next question or its end.
 */
async function answerCall(shared: Shared, server: McpServer, question: string, options: Pick<AskOptions, 'session' | 'llm'>, ctx: ServerContext): Promise<CallToolResult | InputRequiredResult> {
  const state = ctx.mcpReq.requestState<RoundState>();
  let run: QuestionRun<RunResult> | undefined;
  if (state !== undefined) {
    run = shared.runs.get(state.run);
    if (!run) return errorResult('This question is no longer waiting for an answer (it ended or was given up on); ask it again.');
    // One call at a time carries a question on: a second retry with the same state is a client's mistake.
    if (run.sink !== null) return errorResult('This question is already being continued by another call.');
    const answers = new Map(Object.entries(ctx.mcpReq.inputResponses ?? {}).map(([key, response]) => [key, answerFrom(response)]));
    run.answer(answers, state.asked);
  } else {
    const started = startRun(shared, server, question, options, ctx);
    if (typeof started === 'string') return errorResult(started);
    run = started;
  }
  const token = ctx.mcpReq._meta?.progressToken;
  const current = run;
  current.sink = (event) => {
    // Streamed text would be one notification per token: the client hears of the request's start and end instead.
    if (token === undefined || event.type === 'result' || event.type === 'llm_text') return;
    const params = { progressToken: token, progress: ++current.progressCount, message: describeEvent(event) ?? event.type, _meta: { 'cortex-r/event': event } };
    ctx.mcpReq.notify({ method: 'notifications/progress', params }).catch(() => undefined);
  };
  try {
    const step = await current.next(ctx.mcpReq.signal);
    if (step === null) return errorResult('Cancelled by the MCP client.');
    if (step.kind === 'failed') return errorResult(errorMessage(step.error));
    if (step.kind === 'ask') {
      const requestState = await shared.codec.mint({ run: current.id, asked: [step.key] });
      return inputRequired({ inputRequests: { [step.key]: inputRequestFor(step.request) }, requestState });
    }
    return toolResult(step.result);
  } finally {
    current.sink = null;
  }
}

/** Starts a question in the background, or says why not (all slots busy). */
function startRun(shared: Shared, server: McpServer, question: string, options: Pick<AskOptions, 'session' | 'llm'>, ctx: ServerContext): QuestionRun<RunResult> | string {
  const release = shared.slots.tryAcquire();
  if (!release) return `${shared.slots.limit} questions are already running; try again in a few seconds.`;
  // Declared per request on 2026, at initialize on a 2025 connection; a stateless 2025 HTTP request has neither.
  const asking = clientAsking((ctx.mcpReq.envelope as Record<string, ClientCapabilities | undefined> | undefined)?.[CLIENT_CAPABILITIES_META_KEY] ?? server.server.getClientCapabilities());
  const run = new QuestionRun<RunResult>((hooks) => {
    const elicit: Elicit = async (request, { signal }) =>
      request.mode === 'url' && asking !== 'form_and_url' ? { action: 'decline', reason: CANNOT_OPEN_LINKS } : hooks.ask(request, signal);
    return shared.runtime.ask(question, { ...options, signal: hooks.signal, onEvent: hooks.onEvent, ...(asking === 'none' ? {} : { elicit }) });
  });
  shared.runs.set(run.id, run);
  void run.ended.finally(() => {
    shared.runs.delete(run.id);
    release();
  });
  return run;
}

function toolResult(result: RunResult): CallToolResult {
  const said = result.status === 'answered' ? (result.answer ?? '') : `${result.status === 'cancelled' ? 'Cancelled' : 'Gave up'}: ${result.reason ?? ''}`;
  const notes = [...(result.caution ? [result.caution] : []), ...result.sent.map((s) => `Sent: ${s}`)];
  const text = notes.length > 0 ? `${said}\n\n(${notes.join('\n')})` : said;
  return {
    content: [{ type: 'text', text }],
    structuredContent: { status: result.status, answer: result.answer, session_id: result.session_id, steps: result.steps, caution: result.caution, sent: result.sent },
    ...(result.status === 'answered' ? {} : { isError: true }),
  };
}

/** `skill_<name>`: runs a saved plan with the given arguments (its defaults for the rest), no model call. */
function registerSkill(shared: Shared, server: McpServer, skill: Skill): void {
  const inputSchema = Object.fromEntries(
    Object.entries(skill.parameters).map(([name, { default: value }]) => [
      name,
      (typeof value === 'number' ? z.number() : z.string()).optional().describe(`Default: ${JSON.stringify(value)}`),
    ]),
  );
  server.registerTool(
    `skill_${skill.name}`,
    {
      title: `Saved plan ${skill.name}`,
      description: `Runs a saved plan of Cortex-R again, with no model call: "${skill.question.slice(0, 300)}" (each {name} is an argument).`,
      inputSchema: z.object(inputSchema),
      outputSchema: z.object(outputSchema),
      annotations: { readOnlyHint: false, openWorldHint: true },
    },
    async (args, ctx) => {
      let values: Record<string, string | number>;
      try {
        values = skillArguments(skill, Object.fromEntries(Object.entries(args as Record<string, unknown>).filter(([, v]) => v !== undefined)));
      } catch (err) {
        return errorResult(errorMessage(err));
      }
      return answerCall(shared, server, skillQuestion(skill, values), { session: 'new', llm: savedPlanLlm(skill, values) }, ctx);
    },
  );
}

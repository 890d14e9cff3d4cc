// Cortex-R as an MCP server: `ask` and the saved plans (`skill_<name>`), answered by the shared Runtime, with progress notifications for agent events.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { describeEvent } from '../runtime/describe-event.js';
import type { AskOptions, Runtime } from '../runtime/runtime.js';
import { errorMessage } from '../errors.js';
import { savedPlanLlm, skillArguments, skillQuestion } from '../skills/saved-plan-llm.js';
import type { Skill } from '../skills/skill-file.js';
import { MAX_QUESTION_CHARS } from './ask-route.js';
import { clientElicit } from './mcp-elicit.js';
import { QuestionSlots } from './question-slots.js';
import { VERSION } from '../version.js';

/** Server name reported in the MCP initialize handshake. */
export const CORTEX_MCP_SERVER_NAME = 'cortex-r';

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

/**
 * A new McpServer offering `ask {question, session_id?}`, and `skill_<name>` for each saved plan (run with no model). When the request carries a progressToken, each agent
 * event is sent as notifications/progress (message: the terminal display's text; `_meta['cortex-r/event']`: the
 * event). At most `maxConcurrent` questions run at once; cancelling the request cancels the question.
 */
export function buildCortexMcpServer({ runtime, maxConcurrent, skills = [] }: { runtime: Runtime; maxConcurrent: number; skills?: Skill[] }): McpServer {
  const server = new McpServer({ name: CORTEX_MCP_SERVER_NAME, title: 'Cortex-R', version: VERSION }, { capabilities: { tools: {} } });
  const slots = new QuestionSlots(maxConcurrent);
  server.registerTool(
    'ask',
    {
      title: 'Ask Cortex-R',
      description:
        'Answers a question by having an LLM write JavaScript that calls tools (arithmetic, the user\'s indexed documents, web search) ' +
        'in a sandbox, over several steps when needed. Returns the answer and the steps taken. Pass session_id from an earlier ' +
        'answer to continue that conversation.',
      inputSchema: {
        question: z.string().min(1).max(MAX_QUESTION_CHARS).describe('The question, in natural language'),
        session_id: z.string().optional().describe('Continue this session (from an earlier answer\'s session_id)'),
      },
      outputSchema,
      annotations: { readOnlyHint: false, openWorldHint: true },
    },
    async ({ question, session_id }, extra): Promise<CallToolResult> =>
      answerCall(server, runtime, slots, question, { session: session_id === undefined ? 'new' : { id: session_id } }, extra),
  );
  for (const skill of skills) registerSkill(server, runtime, slots, skill);
  return server;
}

/** The context a tool handler gets from the SDK: progress token, signal, and how to reach the client. */
type CallExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** Answers one tool call as a question (its progress as notifications, its requests for input to the client). */
async function answerCall(server: McpServer, runtime: Runtime, slots: QuestionSlots, question: string, options: Pick<AskOptions, 'session' | 'llm'>, extra: CallExtra): Promise<CallToolResult> {
  const release = slots.tryAcquire();
  if (!release) return errorResult(`${slots.limit} questions are already running; try again in a few seconds.`);
  try {
    const token = extra._meta?.progressToken;
    let progress = 0;
    // Tool servers' requests for input, and approval questions, go to the client when it can answer them.
    const elicit = clientElicit(server.server, (request, schema, opts) => extra.sendRequest(request, schema, opts));
    const result = await runtime.ask(question, {
      ...options,
      signal: extra.signal,
      ...(elicit ? { elicit } : {}),
      onEvent: (event) => {
        if (token === undefined || event.type === 'result') return;
        // Streamed text would be one notification per token: the client hears of the request's start and end instead.
        if (event.type === 'llm_text') return;
        const params = { progressToken: token, progress: ++progress, message: describeEvent(event) ?? event.type, _meta: { 'cortex-r/event': event } };
        extra.sendNotification({ method: 'notifications/progress', params }).catch(() => undefined);
      },
    });
    const said = result.status === 'answered' ? (result.answer ?? '') : `${result.status === 'cancelled' ? 'Cancelled' : 'Gave up'}: ${result.reason ?? ''}`;
    const notes = [...(result.caution ? [result.caution] : []), ...result.sent.map((s) => `Sent: ${s}`)];
    const text = notes.length > 0 ? `${said}\n\n(${notes.join('\n')})` : said;
    return {
      content: [{ type: 'text', text }],
      structuredContent: { status: result.status, answer: result.answer, session_id: result.session_id, steps: result.steps, caution: result.caution, sent: result.sent },
      ...(result.status === 'answered' ? {} : { isError: true }),
    };
  } catch (err) {
    return errorResult(errorMessage(err));
  } finally {
    release();
  }
}

/** `skill_<name>`: runs a saved plan with the given arguments (its defaults for the rest), no model call. */
function registerSkill(server: McpServer, runtime: Runtime, slots: QuestionSlots, skill: Skill): void {
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
      inputSchema,
      outputSchema,
      annotations: { readOnlyHint: false, openWorldHint: true },
    },
    async (args, extra): Promise<CallToolResult> => {
      let values: Record<string, string | number>;
      try {
        values = skillArguments(skill, Object.fromEntries(Object.entries(args).filter(([, v]) => v !== undefined)));
      } catch (err) {
        return errorResult(errorMessage(err));
      }
      return answerCall(server, runtime, slots, skillQuestion(skill, values), { session: 'new', llm: savedPlanLlm(skill, values) }, extra);
    },
  );
}

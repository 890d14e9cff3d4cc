// Cortex-R as an MCP server: one tool, `ask`, answered by the shared Runtime, with progress notifications for agent events.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { describeEvent } from '../cli/progress.js';
import type { Runtime } from '../cli/runtime.js';
import { errorMessage } from '../errors.js';
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
 * A new McpServer offering `ask {question, session_id?}`. When the request carries a progressToken, each agent
 * event is sent as notifications/progress (message: the terminal display's text; `_meta['cortex-r/event']`: the
 * event). At most `maxConcurrent` questions run at once; cancelling the request cancels the question.
 */
export function buildCortexMcpServer({ runtime, maxConcurrent }: { runtime: Runtime; maxConcurrent: number }): McpServer {
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
    async ({ question, session_id }, extra): Promise<CallToolResult> => {
      const release = slots.tryAcquire();
      if (!release) return errorResult(`${slots.limit} questions are already running; try again in a few seconds.`);
      try {
        const token = extra._meta?.progressToken;
        let progress = 0;
        // Tool servers' requests for input, and approval questions, go to the client when it can answer them.
        const elicit = clientElicit(server.server, (request, schema, options) => extra.sendRequest(request, schema, options));
        const result = await runtime.ask(question, {
          session: session_id === undefined ? 'new' : { id: session_id },
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
    },
  );
  return server;
}

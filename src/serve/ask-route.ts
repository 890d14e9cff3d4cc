// POST /v1/ask: one question, answered as server-sent events (one per agent event) or as one JSON object.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import type { AgentEvent } from '../agent/types.js';
import { resultJson } from '../runtime/result-json.js';
import type { AskOptions, Runtime } from '../runtime/runtime.js';
import { ApiError, toApiError } from './api-error.js';
import { readJsonBody, sendJson } from './http-io.js';
import { QuestionSlots, RETRY_AFTER_SECONDS } from './question-slots.js';
import type { PageElicitations } from './page-elicitations.js';
import { requireSessionId } from './sessions-route.js';
import { SseStream } from './sse-stream.js';

/** Longest question accepted, in characters: a question, not a document (upload those). */
export const MAX_QUESTION_CHARS = 20_000;

const AskBodySchema = z.strictObject({
  question: z.string({ error: 'question is required (a string)' }).trim().min(1, { error: 'question is empty' }).max(MAX_QUESTION_CHARS, { error: `question is longer than ${MAX_QUESTION_CHARS} characters` }),
  session_id: z.string().optional(),
  strategy: z.string().optional(),
});

/** The SSE data of an event: the event itself, except `result`, whose data is exactly `cortex ask --json`'s object. */
function eventData(event: AgentEvent): unknown {
  return event.type === 'result' ? resultJson(event.result) : event;
}

/**
 * Handles POST /v1/ask for a server whose questions share `runtime` and `slots`. A streamed question's servers may
 * ask the person for input through `elicitations` (an `elicitation` event); a plain JSON one's are declined.
 */
export async function handleAsk(
  req: IncomingMessage,
  res: ServerResponse,
  { runtime, slots, elicitations, maxBodyBytes, headers }: { runtime: Runtime; slots: QuestionSlots; elicitations: PageElicitations; maxBodyBytes: number; headers: Record<string, string> },
): Promise<void> {
  const parsed = AskBodySchema.safeParse(await readJsonBody(req, maxBodyBytes));
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const key = issue.path.join('.');
    throw new ApiError(400, 'bad_request', issue.code === 'unrecognized_keys' ? `unknown field(s): ${issue.keys.join(', ')}` : `${key && !issue.message.startsWith(key) ? `${key}: ` : ''}${issue.message}`);
  }
  const { question, session_id, strategy } = parsed.data;
  if (session_id !== undefined) requireSessionId(session_id);
  const release = slots.tryAcquire();
  if (!release) {
    throw new ApiError(429, 'too_many_questions', `${slots.limit} questions are already running; retry in a few seconds`, { 'retry-after': String(RETRY_AFTER_SECONDS) });
  }
  const controller = new AbortController();
  // Closing the connection cancels the question (a finished response closes too, harmlessly).
  res.on('close', () => controller.abort());
  try {
    const session = session_id === undefined ? 'new' : { id: session_id };
    if ((req.headers.accept ?? '').includes('text/event-stream')) {
      await streamAnswer(res, { runtime, elicitations, question, session, strategy, signal: controller.signal, headers });
    } else {
      const result = await runtime.ask(question, { session, strategy, signal: controller.signal });
      if (!res.destroyed) sendJson(res, 200, resultJson(result), headers);
    }
  } finally {
    release();
  }
}

async function streamAnswer(
  res: ServerResponse,
  options: { runtime: Runtime; elicitations: PageElicitations; question: string; session: AskOptions['session']; strategy?: string; signal: AbortSignal; headers: Record<string, string> },
): Promise<void> {
  const { runtime, elicitations, question, session, strategy, signal, headers } = options;
  for (const [key, value] of Object.entries(headers)) res.setHeader(key, value);
  const stream = new SseStream(res);
  try {
    const elicit = elicitations.forStream((event, data) => stream.send(event, data), signal);
    await runtime.ask(question, { session, strategy, signal, elicit, onEvent: (event) => stream.send(event.type, eventData(event)) });
  } catch (err) {
    // Before the first event the answer can still carry a proper status; after it, an `error` event ends the stream.
    if (!stream.open) throw err;
    const error = toApiError(err);
    stream.send('error', { error: { code: error.code, message: error.message } });
  }
  stream.end();
}

// POST /v1/ask: one question, answered as server-sent events (one per agent event) or as one JSON object.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import type { AgentEvent } from '../agent/types.js';
import { resultJson } from '../runtime/result-json.js';
import type { Runtime } from '../runtime/runtime.js';
import { ApiError, toApiError } from './api-error.js';
import { readJsonBody, sendJson } from './http-io.js';
import { QuestionSlots, RETRY_AFTER_SECONDS } from './question-slots.js';
import type { PageElicitations } from './page-elicitations.js';
import { requireSessionId } from './sessions-route.js';
import { SseStream } from './sse-stream.js';
import type { LiveQuestions } from './live-questions.js';
import { reserveSession } from './new-session.js';
import { SessionBusyError } from '../errors.js';

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

/** The response header naming a streamed question's session, sent with its first event. */
export const SESSION_HEADER = 'cortex-session-id';

/**
 * Handles POST /v1/ask for a server whose questions share `runtime` and `slots`. A streamed question is named by
 * its session at once (a new one is created first), kept in `live` for other viewers to join, and cancelled only by
 * Stop or by having no viewer for a while; its servers may ask the person for input through `elicitations` (an
 * `elicitation` event). A plain JSON question is cancelled when its connection closes; its servers' requests are declined.
 */
export async function handleAsk(
  req: IncomingMessage,
  res: ServerResponse,
  { runtime, slots, live, memoryDir, elicitations, maxBodyBytes, headers }: { runtime: Runtime; slots: QuestionSlots; live: LiveQuestions; memoryDir: string; elicitations: PageElicitations; maxBodyBytes: number; headers: Record<string, string> },
): Promise<void> {
  const parsed = AskBodySchema.safeParse(await readJsonBody(req, maxBodyBytes));
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const key = issue.path.join('.');
    throw new ApiError(400, 'bad_request', issue.code === 'unrecognized_keys' ? `unknown field(s): ${issue.keys.join(', ')}` : `${key && !issue.message.startsWith(key) ? `${key}: ` : ''}${issue.message}`);
  }
  const { question, session_id, strategy } = parsed.data;
  const named = session_id === undefined ? undefined : requireSessionId(session_id).id;
  if (named !== undefined && live.get(named)) throw new SessionBusyError(named);
  const release = slots.tryAcquire();
  if (!release) {
    throw new ApiError(429, 'too_many_questions', `${slots.limit} questions are already running; retry in a few seconds`, { 'retry-after': String(RETRY_AFTER_SECONDS) });
  }
  try {
    if ((req.headers.accept ?? '').includes('text/event-stream')) {
      await streamAnswer(res, { runtime, live, memoryDir, elicitations, question, named, strategy, headers });
    } else {
      const controller = new AbortController();
      // Closing the connection while the question runs cancels it. Once it has ended there is nothing to cancel, and
      // aborting then would only wake every listener its requests left on the signal (about 1 ms a question).
      const cancel = () => controller.abort();
      res.on('close', cancel);
      const session = named === undefined ? 'new' : { id: named };
      let result;
      try {
        result = await runtime.ask(question, { session, strategy, signal: controller.signal });
      } finally {
        res.off('close', cancel);
      }
      if (!res.destroyed) sendJson(res, 200, resultJson(result), headers);
    }
  } finally {
    release();
  }
}

async function streamAnswer(
  res: ServerResponse,
  options: { runtime: Runtime; live: LiveQuestions; memoryDir: string; elicitations: PageElicitations; question: string; named: string | undefined; strategy?: string; headers: Record<string, string> },
): Promise<void> {
  const { runtime, live, memoryDir, elicitations, question, named, strategy, headers } = options;
  const reserved = named === undefined ? await reserveSession(memoryDir) : undefined;
  const id = named ?? reserved!.id;
  const running = live.start(id, question);
  if (!running) throw new SessionBusyError(id);
  for (const [key, value] of Object.entries(headers)) res.setHeader(key, value);
  res.setHeader(SESSION_HEADER, id);
  if (headers['access-control-allow-origin']) res.setHeader('access-control-expose-headers', SESSION_HEADER);
  const stream = new SseStream(res);
  const leave = running.join(stream);
  res.on('close', leave);
  try {
    const elicit = elicitations.forStream((event, data) => running.publish(event, data), running.signal);
    await runtime.ask(question, { session: { id }, strategy, signal: running.signal, elicit, onEvent: (event) => running.publish(event.type, eventData(event)) });
  } catch (err) {
    const error = toApiError(err);
    // Before the first event the asker's answer can still carry a proper status; other viewers get an `error` event.
    const asStatus = !stream.open && !stream.closed;
    if (asStatus) leave();
    running.publish('error', { error: { code: error.code, message: error.message } });
    if (asStatus) throw err;
  } finally {
    running.end();
    await reserved?.discardIfEmpty();
  }
}

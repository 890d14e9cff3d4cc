// GET /v1/sessions/{id}/live (join the question running in a session) and POST /v1/sessions/{id}/stop (cancel it).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError } from './api-error.js';
import { readJsonBody, sendJson } from './http-io.js';
import type { LiveQuestions } from './live-questions.js';
import { requireSessionId } from './sessions-route.js';
import { SseStream } from './sse-stream.js';

/** The first event of a joined stream: which question this is and when it was accepted. */
export const QUESTION_EVENT = 'question';

const notRunning = (id: string) => new ApiError(404, 'not_running', `no question is running in session ${id}`);

/**
 * Streams the question running in session `id` as server-sent events: a `question` event ({session_id, question,
 * started, replayed, model_request_ms}), every event so far, then the live ones up to its `result` (or `error`). Leaving does not cancel it.
 * @throws ApiError 400 for a malformed id, 404 `not_running` when nothing runs there.
 */
export function joinLiveRoute(res: ServerResponse, live: LiveQuestions, rawId: string, headers: Record<string, string>): void {
  const { id } = requireSessionId(rawId);
  const running = live.get(id);
  if (!running) throw notRunning(id);
  for (const [key, value] of Object.entries(headers)) res.setHeader(key, value);
  const stream = new SseStream(res);
  // `replayed`: how many events come before the live ones; `model_request_ms`: how long the model request still
  // running has been, so the page's elapsed time does not start over from the moment it joined.
  stream.send(QUESTION_EVENT, { session_id: id, question: running.question, started: running.started, replayed: running.replayLength, model_request_ms: running.modelRequestMs });
  res.on('close', running.join(stream));
}

/**
 * POST /v1/sessions/{id}/stop with a JSON body (`{}`; a type no cross-site form can send): cancels the question
 * running there; every viewer then gets its cancelled result. @throws ApiError 404 `not_running`.
 */
export async function stopLiveRoute(req: IncomingMessage, res: ServerResponse, { live, rawId, maxBodyBytes, headers }: { live: LiveQuestions; rawId: string; maxBodyBytes: number; headers: Record<string, string> }): Promise<void> {
  const { id } = requireSessionId(rawId);
  await readJsonBody(req, maxBodyBytes);
  const running = live.get(id);
  if (!running) throw notRunning(id);
  running.stop();
  sendJson(res, 200, { stopped: id }, headers);
}

// GET /v1/sessions and /v1/sessions/{id}: the saved sessions, and one session's items.
import type { ServerResponse } from 'node:http';
import { parseSessionId } from '../memory/memory-item.js';
import { DEFAULT_SESSIONS_LISTED, findSessionFile, listSessions, readSessionFile } from '../memory/session-files.js';
import { ApiError } from './api-error.js';
import { sendJson } from './http-io.js';

/** `id` as a session id. @throws ApiError 400 when it is not one. */
export function requireSessionId(id: string): { id: string; unixSeconds: number } {
  const parsed = parseSessionId(id);
  if (!parsed) throw new ApiError(400, 'bad_session_id', `"${id.slice(0, 80)}" is not a session id (e.g. 1718000000-a1b2c3)`);
  return parsed;
}

/** GET /v1/sessions?limit=N: newest first, without file paths. */
export async function listSessionsRoute(res: ServerResponse, memoryDir: string, url: URL, headers: Record<string, string>): Promise<void> {
  const limit = Number.parseInt(url.searchParams.get('limit') ?? '', 10);
  const sessions = await listSessions(memoryDir, { limit: Number.isFinite(limit) ? limit : DEFAULT_SESSIONS_LISTED });
  sendJson(res, 200, { sessions: sessions.map(({ path: _path, ...info }) => info) }, headers);
}

/** GET /v1/sessions/{id}: `{id, items}`; 400 for a malformed id, 404 for an unknown one. */
export async function getSessionRoute(res: ServerResponse, memoryDir: string, id: string, headers: Record<string, string>): Promise<void> {
  const parsed = requireSessionId(id);
  const path = await findSessionFile(memoryDir, parsed);
  if (!path) throw new ApiError(404, 'session_not_found', `no session ${parsed.id}`);
  sendJson(res, 200, { id: parsed.id, items: await readSessionFile(path) }, headers);
}

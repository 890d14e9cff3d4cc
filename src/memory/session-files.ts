// Finding session files in the memory/YYYY/MM/DD folders: locate one by id, list recent ones for `cortex sessions`.
import { lstat, readdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { areRealFolders, readRegularFile } from '../safe-files.js';
import { DATE_FOLDER_DEPTH, dateFolder, MemoryError, parseSessionId, sessionFileName, SessionFileSchema, type MemoryItem } from './memory-item.js';
import { sessionQuestions, type QuestionOutcome } from './session-questions.js';

/** Default number of sessions `cortex sessions` lists, newest first. */
export const DEFAULT_SESSIONS_LISTED = 20;
/** Hard cap on sessions listed, whatever the caller asks. */
export const MAX_SESSIONS_LISTED = 1_000;
/** Date folders visited while searching, so a huge or odd memory/ folder cannot stall a lookup. */
const MAX_DATE_FOLDERS_SCANNED = 20_000;
/** Cap on the first query shown per session. */
const MAX_LISTED_QUERY_CHARS = 200;

const YEAR = /^\d{4}$/;
const MONTH_OR_DAY = /^\d{2}$/;
const SESSION_FILE = /^session-(\d{1,12}-[0-9a-f]{6,32})\.json$/;

async function subfolders(dir: string, pattern: RegExp): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  return entries
    .filter((e) => e.isDirectory() && pattern.test(e.name))
    .map((e) => e.name)
    .sort()
    .reverse();
}

/** Date folders under baseDir, newest first, bounded by MAX_DATE_FOLDERS_SCANNED. */
async function* dateFolders(baseDir: string): AsyncGenerator<string> {
  let scanned = 0;
  for (const year of await subfolders(baseDir, YEAR)) {
    for (const month of await subfolders(join(baseDir, year), MONTH_OR_DAY)) {
      for (const day of await subfolders(join(baseDir, year, month), MONTH_OR_DAY)) {
        if (++scanned > MAX_DATE_FOLDERS_SCANNED) return;
        yield join(baseDir, year, month, day);
      }
    }
  }
}

/** A regular file reached through real folders only: a symbolic link planted in memory/ is never followed. */
async function isFile(path: string): Promise<boolean> {
  const info = await lstat(path).catch(() => null);
  return info !== null && info.isFile() && (await areRealFolders(dirname(path), DATE_FOLDER_DEPTH));
}

/**
 * Path of a session's file: first the date folder its start time implies (local time), then any
 * date folder (the machine's time zone may have changed since). Null when there is none.
 */
export async function findSessionFile(baseDir: string, session: { id: string; unixSeconds: number }): Promise<string | null> {
  const name = sessionFileName(session.id);
  const expected = join(baseDir, ...dateFolder(new Date(session.unixSeconds * 1000)), name);
  if (await isFile(expected)) return expected;
  for await (const folder of dateFolders(baseDir)) {
    if (await isFile(join(folder, name))) return join(folder, name);
  }
  return null;
}

/** One line of `cortex sessions`. */
export interface SessionInfo {
  id: string;
  /** ISO time the session started (from its id). */
  started: string;
  /** The first question asked, or null when the session has none. */
  first_query: string | null;
  item_count: number;
  /** How many questions the session holds. */
  question_count: number;
  /** What became of its last question; null when it has none. */
  last_outcome: QuestionOutcome | null;
  /** Why its last question gave up, failed or was cancelled (the reason's first line); null otherwise. */
  last_reason: string | null;
  path: string;
  /** Set when the file could not be read; the session is still listed so the user can see it. */
  error?: string;
}

/** Text on one line (a list shows one line per session), cut to MAX_LISTED_QUERY_CHARS. */
function listed(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= MAX_LISTED_QUERY_CHARS ? flat : `${flat.slice(0, MAX_LISTED_QUERY_CHARS - 1)}…`;
}

function firstQuery(items: MemoryItem[]): string | null {
  const first = items.find((item) => item.type === 'run_metadata');
  return first ? listed(first.text) : null;
}

/** The first line of a reason (a give-up reason goes on to list every try), on one line. */
function firstLine(reason: string | null): string | null {
  return reason === null ? null : listed(reason.split('\n')[0]!);
}

/** The session files under baseDir, newest first, without reading them. */
export async function* sessionFiles(baseDir: string): AsyncGenerator<{ id: string; unixSeconds: number; path: string }> {
  for await (const folder of dateFolders(baseDir)) {
    const names = (await readdir(folder).catch(() => [] as string[]))
      .map((name) => SESSION_FILE.exec(name)?.[1])
      .filter((id): id is string => id !== undefined)
      .map((id) => parseSessionId(id)!)
      .sort((a, b) => b.unixSeconds - a.unixSeconds || b.id.localeCompare(a.id));
    for (const { id, unixSeconds } of names) yield { id, unixSeconds, path: join(folder, sessionFileName(id)) };
  }
}

/** Sessions under baseDir, newest first, at most `limit` (default DEFAULT_SESSIONS_LISTED). */
export async function listSessions(baseDir: string, { limit = DEFAULT_SESSIONS_LISTED }: { limit?: number } = {}): Promise<SessionInfo[]> {
  const max = Math.max(0, Math.min(limit, MAX_SESSIONS_LISTED));
  const sessions: SessionInfo[] = [];
  if (max === 0) return sessions;
  for await (const { id, unixSeconds, path } of sessionFiles(baseDir)) {
    const info: SessionInfo = {
      id,
      started: new Date(unixSeconds * 1000).toISOString(),
      first_query: null,
      item_count: 0,
      question_count: 0,
      last_outcome: null,
      last_reason: null,
      path,
    };
    try {
      const items = await readSessionFile(path);
      info.first_query = firstQuery(items);
      info.item_count = items.length;
      const questions = sessionQuestions(items);
      info.question_count = questions.length;
      info.last_outcome = questions.at(-1)?.outcome ?? null;
      info.last_reason = firstLine(questions.at(-1)?.reason ?? null);
    } catch (err) {
      info.error = (err as Error).message;
    }
    sessions.push(info);
    if (sessions.length >= max) return sessions;
  }
  return sessions;
}

/** Reads and validates a session file. @throws MemoryError when it is unreadable or not a list of items. */
export async function readSessionFile(path: string): Promise<MemoryItem[]> {
  let text: string;
  try {
    text = await readRegularFile(path);
  } catch (err) {
    throw new MemoryError(path, `cannot be read: ${(err as Error).message}`, { cause: err });
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new MemoryError(path, `cannot be read as JSON: ${(err as Error).message}`, { cause: err });
  }
  const parsed = SessionFileSchema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new MemoryError(path, `is not a list of memory items (at ${issue.path.join('.') || 'top level'}: ${issue.message})`);
  }
  return parsed.data;
}

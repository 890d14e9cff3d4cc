// One session's memory file (memory/YYYY/MM/DD/session-<unix>-<uid>.json): items appended and written atomically.
import { randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import { UsageError } from '../errors.js';
import { ensureRealFolders, replaceFile, replaceSmallFile } from '../safe-files.js';
import {
  DATE_FOLDER_DEPTH,
  dateFolder,
  MemoryError,
  parseSessionId,
  sessionFileName,
  traceFileName,
  type MemoryItem,
} from './memory-item.js';
import { DEFAULT_CONVERSATION_CHARS } from './conversation.js';
import { earlierLabels, type DataLabels } from './data-labels.js';
import { summariseMemory } from './memory-summary.js';
import { findSessionFile, readSessionFile } from './session-files.js';

/** Items kept per session; past it the oldest go, so a day-long REPL session stays a small file. */
export const MAX_SESSION_ITEMS = 5_000;
/** Cap on an item's text, in characters. */
export const MAX_ITEM_TEXT_CHARS = 10_000;
/** Cap on an item's tool_args / tool_result as JSON, in characters; larger values are stored as a preview. */
export const MAX_ITEM_JSON_CHARS = 10_000;
/**
 * Session files up to this size are written with synchronous calls (replaceSmallFile: tens of microseconds, against
 * hundreds through the thread pool, six times a question); a bigger one, a long session's, goes all the way through
 * the thread pool so writing it never holds up other questions being served.
 */
export const MAX_SYNC_SAVE_CHARS = 256 * 1024;
/** Default number of tools findRecentSuccesses returns. */
export const DEFAULT_RECENT_SUCCESSES = 10;

/** What callers pass to add(): timestamp, tags and metadata have defaults. */
export type NewMemoryItem = Omit<MemoryItem, 'timestamp' | 'tags' | 'metadata'> &
  Partial<Pick<MemoryItem, 'timestamp' | 'tags' | 'metadata'>>;

function clipText(text: string): string {
  return text.length <= MAX_ITEM_TEXT_CHARS ? text : `${text.slice(0, MAX_ITEM_TEXT_CHARS)}… [truncated from ${text.length} characters]`;
}

function clipJson(value: unknown): unknown {
  if (value === undefined) return undefined;
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch {
    return { unserialisable: true, preview: String(value).slice(0, MAX_ITEM_JSON_CHARS) };
  }
  if (json === undefined || json.length <= MAX_ITEM_JSON_CHARS) return value;
  return { truncated: true, original_chars: json.length, preview: json.slice(0, MAX_ITEM_JSON_CHARS) };
}

/**
 * A session's memory. Create one with SessionMemory.create (no file until the first item) or
 * continue one with SessionMemory.open. Every add() rewrites the whole file atomically (temp file
 * + rename), so a crash or a concurrent reader never sees half a file; writes are queued in order.
 */
export class SessionMemory {
  private readonly list: MemoryItem[];
  private writing: Promise<void> = Promise.resolve();

  private constructor(
    /** `<unix>-<uid>`, what `--session` takes. */
    readonly id: string,
    /** Absolute path of the session file. */
    readonly path: string,
    items: MemoryItem[],
  ) {
    this.list = items;
  }

  /** Starts a new session under `baseDir` (the profile's memory path). Nothing is written until add(). */
  static create({ baseDir, now = new Date() }: { baseDir: string; now?: Date }): SessionMemory {
    const id = `${Math.floor(now.getTime() / 1000)}-${randomBytes(3).toString('hex')}`;
    return new SessionMemory(id, join(baseDir, ...dateFolder(now), sessionFileName(id)), []);
  }

  /**
   * Continues an existing session, searching the date folders for its file.
   * @throws UsageError when the id is malformed or no such session exists; MemoryError when its file is corrupt.
   */
  static async open({ baseDir, sessionId }: { baseDir: string; sessionId: string }): Promise<SessionMemory> {
    const parsed = parseSessionId(sessionId);
    if (!parsed) throw new UsageError(`"${sessionId}" is not a session id (expected e.g. 1718000000-a1b2c3; see \`cortex sessions\`)`);
    const path = await findSessionFile(baseDir, parsed);
    if (!path) throw new UsageError(`no session ${parsed.id} under ${baseDir} (see \`cortex sessions\`)`);
    return new SessionMemory(parsed.id, path, await readSessionFile(path));
  }

  /** The JSONL trace file beside the session file. */
  get tracePath(): string {
    return join(dirname(this.path), traceFileName(this.id));
  }

  /** The items so far, oldest first. */
  get items(): readonly MemoryItem[] {
    return this.list;
  }

  /**
   * Appends an item (text and JSON fields bounded) and writes the file; resolves once this
   * item is on disk. @throws MemoryError when the file cannot be written.
   */
  add(item: NewMemoryItem): Promise<MemoryItem> {
    const stored: MemoryItem = {
      ...item,
      timestamp: item.timestamp ?? new Date().toISOString(),
      text: clipText(item.text),
      tags: item.tags ?? [],
      metadata: item.metadata ?? {},
    };
    if (item.tool_args !== undefined) stored.tool_args = clipJson(item.tool_args);
    if (item.tool_result !== undefined) stored.tool_result = clipJson(item.tool_result);
    if (item.final_answer !== undefined) stored.final_answer = clipText(item.final_answer);
    this.list.push(stored);
    if (this.list.length > MAX_SESSION_ITEMS) this.list.splice(0, this.list.length - MAX_SESSION_ITEMS);
    // A failed write must not stop later writes from trying again with the full list.
    const write = this.writing.catch(() => undefined).then(() => this.writeAtomically());
    this.writing = write;
    return write.then(() => stored);
  }

  /** Resolves when every queued write has finished (rejects if the last one failed). */
  flush(): Promise<void> {
    return this.writing;
  }

  /** Names of tools whose calls succeeded, most recent first, each once. */
  findRecentSuccesses(limit: number = DEFAULT_RECENT_SUCCESSES): string[] {
    const names: string[] = [];
    for (let i = this.list.length - 1; i >= 0 && names.length < limit; i--) {
      const item = this.list[i]!;
      if (item.type === 'tool_call' && item.success === true && item.tool_name && !names.includes(item.tool_name)) {
        names.push(item.tool_name);
      }
    }
    return names;
  }

  /** A bounded text for prompts: the summary of older turns, the newest turns in full, and recently successful tools. */
  summary({ excludeRunId, maxChars = DEFAULT_CONVERSATION_CHARS, withholdUntrusted = false, recentSuccesses = DEFAULT_RECENT_SUCCESSES }: { excludeRunId?: string; maxChars?: number; withholdUntrusted?: boolean; recentSuccesses?: number } = {}): string {
    return summariseMemory({ items: this.list, recentSuccesses: recentSuccesses > 0 ? this.findRecentSuccesses(recentSuccesses) : [], excludeRunId, maxChars, withholdUntrusted });
  }

  /** What the session's earlier runs drew on (outside content, private data): a planner shown them holds it too. */
  labels({ excludeRunId }: { excludeRunId?: string } = {}): DataLabels {
    return earlierLabels(this.list, excludeRunId);
  }

  private async writeAtomically(): Promise<void> {
    try {
      // memory/YYYY/MM/DD: three real folders, never links planted to send the file elsewhere.
      await ensureRealFolders(dirname(this.path), DATE_FOLDER_DEPTH);
      const text = `${JSON.stringify(this.list, null, 2)}\n`;
      await (text.length <= MAX_SYNC_SAVE_CHARS ? replaceSmallFile : replaceFile)(this.path, text);
    } catch (err) {
      throw new MemoryError(this.path, `cannot be written: ${(err as Error).message}`, { cause: err });
    }
  }
}

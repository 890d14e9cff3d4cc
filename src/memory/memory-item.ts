// The shape of one session-memory item (DESIGN §3.7), its schema for reading files back, and session-id rules.
import { z } from 'zod';
import { CortexError } from '../errors.js';

export const MEMORY_ITEM_TYPES = ['run_metadata', 'tool_call', 'tool_output', 'final_answer'] as const;
export type MemoryItemType = (typeof MEMORY_ITEM_TYPES)[number];

/** Unknown keys are kept (looseObject) so files written by a newer version still open. */
export const MemoryItemSchema = z.looseObject({
  /** ISO 8601 time the item was added. */
  timestamp: z.string(),
  type: z.enum(MEMORY_ITEM_TYPES),
  text: z.string(),
  tool_name: z.string().optional(),
  tool_args: z.unknown().optional(),
  tool_result: z.unknown().optional(),
  final_answer: z.string().optional(),
  tags: z.array(z.string()),
  success: z.boolean().optional(),
  metadata: z.record(z.string(), z.unknown()),
});

/** One remembered event. Written by SessionMemory.add(); unknown keys read from a file are kept. */
export interface MemoryItem {
  /** ISO 8601 time the item was added. */
  timestamp: string;
  type: MemoryItemType;
  /** Human-readable text: the question, the call, the result or the answer. */
  text: string;
  tool_name?: string;
  tool_args?: unknown;
  tool_result?: unknown;
  final_answer?: string;
  tags: string[];
  /** For tool calls and results: whether it worked. */
  success?: boolean;
  /** run_id, step, lifeline, timings... */
  metadata: Record<string, unknown>;
}

/** A session file: a JSON list of items, as in the original. */
export const SessionFileSchema: z.ZodType<MemoryItem[]> = z.array(MemoryItemSchema);

/** A session file is unreadable or corrupt, or could not be written. */
export class MemoryError extends CortexError {
  constructor(
    readonly path: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super('memory', `session memory ${path}: ${message}`, options);
  }
}

/** `<unix seconds>-<hex uid>`; the strict pattern also keeps user-given ids out of other folders. */
const SESSION_ID_PATTERN = /^(\d{1,12})-([0-9a-f]{6,32})$/;

/**
 * Accepts what a user may paste for `--session`: `1718000000-a1b2c3`, `session-1718000000-a1b2c3`
 * or the file name with `.json`. Returns the bare id and its start time, or null when malformed.
 */
export function parseSessionId(input: string): { id: string; unixSeconds: number } | null {
  const bare = input.trim().replace(/^session-/, '').replace(/\.json$/, '');
  const match = SESSION_ID_PATTERN.exec(bare);
  return match ? { id: bare, unixSeconds: Number(match[1]) } : null;
}

/** File name of a session's memory. */
export function sessionFileName(id: string): string {
  return `session-${id}.json`;
}

/** File name of a session's JSONL trace, kept beside the memory file. */
export function traceFileName(id: string): string {
  return `session-${id}.trace.jsonl`;
}

/** Folders between the memory folder and a session's files: YYYY/MM/DD. */
export const DATE_FOLDER_DEPTH = 3;

/** `YYYY/MM/DD` (local time, as the original) of a moment, as path segments. */
export function dateFolder(date: Date): [string, string, string] {
  const pad = (n: number) => String(n).padStart(2, '0');
  return [String(date.getFullYear()), pad(date.getMonth() + 1), pad(date.getDate())];
}

// A session's JSONL trace (session-….trace.jsonl beside the memory file): one line per LLM call, plan, tool call, error, answer.
import { dirname } from 'node:path';
import { appendRegularFileSync, ensureRealFolders } from '../safe-files.js';
import { DATE_FOLDER_DEPTH, MemoryError } from './memory-item.js';

/** Cap on any one string field of a trace line (code, prompts, results), in characters. */
export const MAX_TRACE_FIELD_CHARS = 20_000;
/** Cap on a JSON-valued field (tool arguments) once serialised, in characters. */
export const MAX_TRACE_JSON_CHARS = 10_000;

/** Every kind of line the trace holds. Each line also gets `ts` (ISO time). */
export type TraceEvent =
  | { type: 'run_start'; run_id: string; query: string; strategy: string; max_steps: number; max_lifelines_per_step: number; model: string }
  | {
      type: 'llm_call';
      run_id: string;
      stage: 'perception' | 'decision' | 'compaction';
      step: number;
      model: string;
      prompt_tokens: number;
      completion_tokens: number;
      latency_ms: number;
      ok: boolean;
      error?: string;
    }
  | { type: 'perception'; run_id: string; step: number; selected_servers: string[]; fallback: boolean; fallback_reason?: string; intent: string }
  | { type: 'plan'; run_id: string; step: number; lifeline: number; strategy: string; tools: string[]; narrowed: boolean; code: string }
  | { type: 'tool_call'; run_id: string; step: number; lifeline: number; name: string; args: unknown; ms: number; ok: boolean; error?: string }
  | { type: 'sandbox_error'; run_id: string; step: number; lifeline: number; kind: string; message: string; ms: number }
  | { type: 'invalid_plan'; run_id: string; step: number; lifeline: number; value: string; ms: number }
  | { type: 'step_result'; run_id: string; step: number; lifeline: number; result: string; ms: number }
  | { type: 'answer'; run_id: string; step: number; answer: string }
  | { type: 'gave_up'; run_id: string; reason: string }
  | { type: 'cancelled'; run_id: string; reason: string }
  | { type: 'error'; run_id: string; code: string; message: string };

function bound(value: unknown, key: string): unknown {
  if (typeof value === 'string') {
    return value.length <= MAX_TRACE_FIELD_CHARS ? value : `${value.slice(0, MAX_TRACE_FIELD_CHARS)}… [truncated from ${value.length} characters]`;
  }
  if (key === 'args' && value !== undefined) {
    let json: string | undefined;
    try {
      json = JSON.stringify(value);
    } catch {
      return '[unserialisable]';
    }
    if (json !== undefined && json.length > MAX_TRACE_JSON_CHARS) return { truncated: true, preview: json.slice(0, MAX_TRACE_JSON_CHARS) };
  }
  return value;
}

/**
 * Appends events to a JSONL file, one JSON object per line, in call order (appends are queued).
 * The file and its folder are created on the first event.
 */
export class Trace {
  private writing: Promise<void> = Promise.resolve();

  constructor(
    /** Absolute path of the .trace.jsonl file; SessionMemory.tracePath gives the usual one. */
    readonly path: string,
  ) {}

  /** Writes one line; resolves when it is on disk. @throws MemoryError when the file cannot be written. */
  record(event: TraceEvent): Promise<void> {
    const line: Record<string, unknown> = { ts: new Date().toISOString() };
    for (const [key, value] of Object.entries(event)) line[key] = bound(value, key);
    const text = `${JSON.stringify(line)}\n`;
    const write = this.writing
      .catch(() => undefined)
      .then(async () => {
        try {
          // Beside the session file in memory/YYYY/MM/DD; a link planted there is never written through.
          await ensureRealFolders(dirname(this.path), DATE_FOLDER_DEPTH);
          appendRegularFileSync(this.path, text);
        } catch (err) {
          throw new MemoryError(this.path, `trace cannot be written: ${(err as Error).message}`, { cause: err });
        }
      });
    this.writing = write;
    return write;
  }

  /** Resolves when every queued line has been written (rejects if the last write failed). */
  flush(): Promise<void> {
    return this.writing;
  }
}

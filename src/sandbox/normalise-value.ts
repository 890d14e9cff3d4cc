// Turns whatever solve() returned into the text the agent loop judges (the rule is in the JSDoc and the README).

/**
 * The text of a solve() return value:
 * - a string is itself;
 * - an object with a `FINAL_ANSWER` / `final_answer` (or `FURTHER_PROCESSING_REQUIRED` /
 *   `further_processing_required`) key is that prefix plus the key's value;
 * - else an object with `result`, `answer` or `value` (first found) is that value, read by these rules again;
 * - an array is its items joined by a space (the original's rule), objects among them as JSON;
 * - any other object is JSON (one JSON cannot hold, e.g. a cycle, is "[object Object]");
 * - a promise (anything with a `then` method: a tool call not awaited), wherever it sits, is
 *   "[object Promise]", which the loop refuses;
 * - anything else is String(x): numbers, booleans, and "undefined", "null", "NaN", which the loop refuses.
 * Nesting is followed at most 5 levels deep.
 *
 * This function's source is also evaluated inside the isolate (see isolate-bootstrap.ts), so it
 * must stay self-contained: no imports, no references to module-level names.
 */
export function normaliseValue(x: unknown): string {
  const isPromise = (v: unknown): boolean => typeof v === 'object' && v !== null && typeof (v as { then?: unknown }).then === 'function';
  const json = (v: unknown): string => {
    try {
      const text = JSON.stringify(v, (_key, x: unknown) => (isPromise(x) ? '[object Promise]' : x));
      if (typeof text === 'string') return text;
    } catch {
      // Cycles can't be JSON; fall through to String().
    }
    return String(v);
  };
  const read = (v: unknown, depth: number): string => {
    if (typeof v === 'string') return v;
    if (isPromise(v)) return '[object Promise]';
    if (Array.isArray(v)) {
      return v.map((item) => (typeof item === 'string' ? item : isPromise(item) ? '[object Promise]' : typeof item === 'object' && item !== null ? json(item) : String(item))).join(' ');
    }
    if (typeof v !== 'object' || v === null) return String(v);
    const o = v as Record<string, unknown>;
    if (depth >= 5) return json(o);
    for (const key of ['FINAL_ANSWER', 'final_answer']) if (key in o) return 'FINAL_ANSWER: ' + read(o[key], depth + 1);
    for (const key of ['FURTHER_PROCESSING_REQUIRED', 'further_processing_required']) if (key in o) return 'FURTHER_PROCESSING_REQUIRED: ' + read(o[key], depth + 1);
    for (const key of ['result', 'answer', 'value']) if (key in o) return read(o[key], depth + 1);
    return json(o);
  };
  return read(x, 0);
}

// Turns whatever solve() returned into the string the agent loop reads (the original's rules).

/**
 * Normalises a solve() return value: an object with `result` → that (normalised again), any other
 * object → JSON, an array → its items joined by a space (objects as JSON), anything else → String(x).
 *
 * This function's source is also evaluated inside the isolate (see isolate-bootstrap.ts), so it
 * must stay self-contained: no imports, no references to module-level names.
 */
export function normaliseValue(x: unknown): string {
  const item = (v: unknown): string => {
    if (typeof v === 'string') return v;
    if (typeof v === 'object' && v !== null) {
      try {
        const json = JSON.stringify(v);
        if (typeof json === 'string') return json;
      } catch {
        // Cycles and BigInts can't be JSON; fall through to String().
      }
    }
    return String(v);
  };
  if (Array.isArray(x)) return x.map(item).join(' ');
  if (typeof x === 'object' && x !== null) {
    if ('result' in x) return normaliseValue((x as { result: unknown }).result);
    return item(x);
  }
  return String(x);
}

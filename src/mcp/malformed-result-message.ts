// Turns the MCP SDK's errors for a malformed tool result (a zod issue dump, an output-schema mismatch) into one line for the model.

/** Places in the result named in the message, at most; the rest are counted. */
const MAX_PLACES_NAMED = 3;
/** Longest one-line message returned. */
const MAX_MESSAGE_CHARS = 300;

interface Issue {
  path?: unknown[];
  message?: string;
}

/** "content[0]" for ['content', 0]. */
function placeOf(path: unknown[] | undefined): string {
  if (!path?.length) return 'the result';
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`)).join('');
}

/**
 * The one-line message for an error the SDK raised because a server's tool result broke the protocol (the result
 * schema or the tool's own outputSchema), or undefined when `err` is some other failure (left as it is).
 */
export function malformedResultMessage(err: unknown): string | undefined {
  const message = err instanceof Error ? err.message : typeof err === 'string' ? err : '';
  const dump = /Invalid tools\/call result: (\[[\s\S]*\])\s*$/.exec(message);
  if (dump) {
    let issues: Issue[] = [];
    try {
      const parsed: unknown = JSON.parse(dump[1]!);
      if (Array.isArray(parsed)) issues = parsed as Issue[];
    } catch {
      // Not the JSON the SDK usually sends: say what we can without it.
    }
    const places = [...new Set(issues.map((i) => placeOf(i.path)))];
    const named = places.slice(0, MAX_PLACES_NAMED).join(', ');
    const more = places.length > MAX_PLACES_NAMED ? ` and ${places.length - MAX_PLACES_NAMED} more` : '';
    return `the server sent a malformed result (it does not follow the MCP tool result format${named ? ` at ${named}${more}` : ''})`;
  }
  const schema = /(Structured content does not match the tool's output schema|has an output schema but did not return structured content|Failed to validate structured content)(.*)$/s.exec(message);
  if (schema) {
    const detail = schema[0].replace(/\s+/g, ' ').trim();
    const text = `the server's result does not match the tool's declared output schema: ${detail}`;
    return text.length <= MAX_MESSAGE_CHARS ? text : `${text.slice(0, MAX_MESSAGE_CHARS - 1)}…`;
  }
  return undefined;
}

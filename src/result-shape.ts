// A step result too long for the next prompt, cut to its shape: every key, array lengths, first items, clipped strings.

/** How much of the value one rendering keeps; each level keeps less than the one before. */
interface Detail {
  items: number;
  keys: number;
  chars: number;
}

const LEVELS: readonly Detail[] = [
  { items: 20, keys: 60, chars: 400 },
  { items: 10, keys: 40, chars: 200 },
  { items: 5, keys: 30, chars: 120 },
  { items: 3, keys: 20, chars: 80 },
  { items: 2, keys: 15, chars: 50 },
  { items: 1, keys: 10, chars: 30 },
];

/** Deeper than this, a value shows only what it is (`{…3 keys}`, `[…12 items]`). */
const MAX_DEPTH = 8;

const count = (n: number): string => n.toLocaleString('en-US');

function clipString(s: string, chars: number): string {
  return s.length <= chars ? JSON.stringify(s) : `${JSON.stringify(s.slice(0, chars))}… [${count(s.length)} chars]`;
}

function render(value: unknown, detail: Detail, depth: number, indent: string): string {
  if (typeof value === 'string') return clipString(value, detail.chars);
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    if (depth >= MAX_DEPTH) return `[…${count(value.length)} items]`;
    const shown = value.slice(0, detail.items).map((item) => `${inner}${render(item, detail, depth + 1, inner)}`);
    if (value.length > detail.items) shown.push(`${inner}… ${count(value.length - detail.items)} more (${count(value.length)} items in all)`);
    return `[\n${shown.join(',\n')}\n${indent}]`;
  }
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length === 0) return '{}';
  if (depth >= MAX_DEPTH) return `{…${count(entries.length)} keys}`;
  const shown = entries.slice(0, detail.keys).map(([key, item]) => `${inner}${JSON.stringify(key)}: ${render(item, detail, depth + 1, inner)}`);
  if (entries.length > detail.keys) {
    const rest = entries.slice(detail.keys).map(([key]) => key);
    shown.push(`${inner}… ${count(rest.length)} more keys: ${clipString(rest.join(', '), detail.chars)}`);
  }
  return `{\n${shown.join(',\n')}\n${indent}}`;
}

function parseJson(text: string): { value: unknown } | null {
  const trimmed = text.trim();
  if (!/^[[{]/.test(trimmed)) return null;
  try {
    return { value: JSON.parse(trimmed) };
  } catch {
    return null;
  }
}

/** Plain text too long: its start and its end, saying how much was left out between them. */
function clipText(text: string, max: number): string {
  const head = Math.floor(max * 0.75);
  const tail = Math.max(0, max - head);
  return `${text.slice(0, head)}\n… [${count(text.length - head - tail)} of ${count(text.length)} characters left out] …\n${text.slice(text.length - tail)}`;
}

/**
 * `text` whole when it fits in `max` characters; otherwise, for JSON, a rendering that keeps every
 * level's keys and every array's length while showing only the first items and the start of long
 * strings (the least cut that fits); for other text, its start and end.
 */
export function shapeOfResult(text: string, max: number): string {
  if (text.length <= max) return text;
  const parsed = parseJson(text);
  if (parsed) {
    for (const detail of LEVELS) {
      const shaped = `[shape of a ${count(text.length)}-character JSON value: first items and the start of long strings; counts are exact]\n${render(parsed.value, detail, 0, '')}`;
      if (shaped.length <= max) return shaped;
    }
  }
  return clipText(text, max);
}

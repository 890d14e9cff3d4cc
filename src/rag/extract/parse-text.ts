// Plain-text formats: txt and md as they are, csv as text, json pretty-printed.
import { errorMessage } from '../../errors.js';
import { decodeText } from './decode-text.js';
import type { ParseOutcome } from './parsed.js';

/** JSON nested deeper than this is kept compact rather than indented (real data files stay under ~20 levels). */
export const MAX_PRETTY_JSON_DEPTH = 32;

/** Lines of a Markdown file searched for its `# Title`. */
const MAX_TITLE_SEARCH_LINES = 50;

/** Decodes `bytes` and returns one page; a binary-looking file → `unsupported`, invalid JSON is kept as text with a warning. */
export function parseText(format: 'txt' | 'md' | 'csv' | 'json', bytes: Uint8Array, name: string): ParseOutcome {
  const decoded = decodeText(bytes, name);
  if (!decoded.ok) return { ok: false, reason: 'unsupported', message: decoded.message };
  const warnings = [...decoded.warnings];
  let text = decoded.text;
  if (text.trim() === '') return { ok: false, reason: 'no_text', message: `${name} is empty.` };
  if (format === 'json') {
    try {
      const value: unknown = JSON.parse(text);
      // Indentation grows with depth, so pretty-printing deep nesting is quadratic in size: keep that compact.
      text = nestingDepth(value) <= MAX_PRETTY_JSON_DEPTH ? JSON.stringify(value, null, 2) : JSON.stringify(value);
    } catch (err) {
      warnings.push(`${name} is not valid JSON (${errorMessage(err)}); it was kept as plain text.`);
    }
  }
  return { ok: true, title: format === 'md' ? markdownTitle(text) : null, pages: [{ page: 1, text }], warnings };
}

/** How deep `value` nests arrays and objects, counted without recursion (so any depth JSON.parse accepts is fine), stopping past the pretty-print bound. */
function nestingDepth(value: unknown): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (typeof item !== 'object' || item === null) continue;
    deepest = Math.max(deepest, depth);
    if (deepest > MAX_PRETTY_JSON_DEPTH) return deepest;
    for (const child of Object.values(item)) stack.push([child, depth + 1]);
  }
  return deepest;
}

/** The first level-1 ATX heading (`# Title`) within the first lines of Markdown, or null. */
export function markdownTitle(text: string): string | null {
  const lines = text.split('\n', MAX_TITLE_SEARCH_LINES);
  for (const line of lines) {
    const heading = /^#\s+(.+?)\s*#*\s*$/.exec(line);
    if (heading?.[1]) return heading[1];
  }
  return null;
}

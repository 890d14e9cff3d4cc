// Plain-text formats: txt and md as they are, csv as text, json pretty-printed.
import { errorMessage } from '../../errors.js';
import { decodeText } from './decode-text.js';
import type { ParseOutcome } from './parsed.js';

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
      text = JSON.stringify(JSON.parse(text), null, 2);
    } catch (err) {
      warnings.push(`${name} is not valid JSON (${errorMessage(err)}); it was kept as plain text.`);
    }
  }
  return { ok: true, title: format === 'md' ? markdownTitle(text) : null, pages: [{ page: 1, text }], warnings };
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

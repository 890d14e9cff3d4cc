// Reads the visible text of an HTML page with cheerio: clutter (scripts, styles, navigation, headers, footers,
// forms, embeds, hidden parts) left out, whitespace normalised, blocks on their own lines.
import { load } from 'cheerio/slim';
import { countHtmlElements, MAX_TREE_ELEMENTS, streamHtmlText } from '../../src/net/html-element-budget.js';
import { DEFAULT_MAX_PAGE_CHARS } from './websearch-context.js';

/** Elements whose content is never page text: code, styling, site chrome, forms and embedded documents. */
const SKIPPED_ELEMENTS = new Set([
  'script', 'style', 'nav', 'header', 'footer', 'noscript', 'svg', 'iframe', 'form', 'template', 'object', 'embed',
  'canvas', 'button', 'select', 'dialog', 'math',
]);

/** Elements that start a new line of text, so "<p>a</p><p>b</p>" reads "a" and "b", not "ab". */
const BLOCK_ELEMENTS = new Set([
  'address', 'article', 'aside', 'blockquote', 'br', 'caption', 'dd', 'details', 'div', 'dl', 'dt', 'figcaption',
  'figure', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'hr', 'li', 'main', 'ol', 'p', 'pre', 'section', 'summary', 'table',
  'tbody', 'td', 'th', 'thead', 'title', 'tr', 'ul',
]);

/** The parts of a domhandler node the walk reads; cheerio's own node types come from a package we do not depend on. */
interface DomNode {
  type: string;
  name?: string;
  data?: string;
  attribs?: Record<string, string>;
  children?: DomNode[];
}

const LINE_BREAK = Symbol('line break');

function isHidden(attribs: Record<string, string> | undefined): boolean {
  if (!attribs) return false;
  if ('hidden' in attribs || attribs['aria-hidden'] === 'true') return true;
  return /display\s*:\s*none|visibility\s*:\s*hidden/i.test(attribs.style ?? '');
}

/** Collapses runs of whitespace to one space on each line and drops empty lines. */
export function normaliseWhitespace(text: string): string {
  return text
    .split('\n')
    .map((line) => line.replace(/\s+/g, ' ').trim())
    .filter((line) => line !== '')
    .join('\n');
}

/**
 * The visible text of `html`, in document order (the <title> first), one block per line, whitespace normalised.
 * Never throws for malformed HTML; the walk uses its own stack, so deep nesting cannot overflow the call stack.
 */
export function extractPageText(html: string): string {
  // A page too big for a tree (a million tiny elements) is read by a streaming parse instead of costing a gigabyte.
  if (countHtmlElements(html, MAX_TREE_ELEMENTS) > MAX_TREE_ELEMENTS) return streamHtmlText(html);
  const $ = load(html);
  const parts: string[] = [];
  const stack: (DomNode | typeof LINE_BREAK)[] = [$.root()[0] as unknown as DomNode];
  // Bounded by the number of nodes, which the body size cap bounds.
  while (stack.length > 0) {
    const node = stack.pop();
    if (node === undefined) break;
    if (node === LINE_BREAK) {
      parts.push('\n');
      continue;
    }
    if (node.type === 'text') {
      // Line breaks in the source are only whitespace in HTML; lines come from block elements alone.
      parts.push((node.data ?? '').replace(/\s+/g, ' '));
      continue;
    }
    if (node.type === 'comment' || node.type === 'directive') continue;
    const name = node.name?.toLowerCase();
    if (name !== undefined && (SKIPPED_ELEMENTS.has(name) || isHidden(node.attribs))) continue;
    const block = name !== undefined && BLOCK_ELEMENTS.has(name);
    if (block) {
      parts.push('\n');
      stack.push(LINE_BREAK);
    }
    const children = node.children ?? [];
    for (let i = children.length - 1; i >= 0; i--) {
      const child = children[i];
      if (child) stack.push(child);
    }
  }
  return normaliseWhitespace(parts.join(''));
}

/** Options for {@link cutText}. */
export interface CutTextOptions {
  maxChars?: number;
  /** The body was cut at the size cap before parsing, so the page is longer than what was read. */
  bodyTruncated?: boolean;
  /** The body size cap, for the note when bodyTruncated. */
  maxBodyBytes?: number;
}

/**
 * `text` cut to `maxChars` (never inside a surrogate pair) with a marker saying how much was left out, and a note
 * when the page itself was longer than the size cap.
 */
export function cutText(text: string, { maxChars = DEFAULT_MAX_PAGE_CHARS, bodyTruncated = false, maxBodyBytes }: CutTextOptions = {}): string {
  const notes: string[] = [];
  let kept = text;
  if (text.length > maxChars) {
    let end = maxChars;
    const last = text.charCodeAt(end - 1);
    if (last >= 0xd800 && last <= 0xdbff) end -= 1;
    kept = text.slice(0, end).trimEnd();
    notes.push(`[content truncated: showing the first ${end} of ${text.length} characters]`);
  }
  if (bodyTruncated) {
    const size = maxBodyBytes === undefined ? 'the size limit' : `${Math.round(maxBodyBytes / 1024)} KB`;
    notes.push(`[page cut: only its first ${size} were read]`);
  }
  return notes.length === 0 ? kept : `${kept}\n… ${notes.join(' ')}`;
}

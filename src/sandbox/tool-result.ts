// What `tools.x()` resolves to, and the message of a failed tool result (DESIGN §3.1).
import type { ToolResult } from '../mcp/types.js';

/** Length of a server's error text kept in the message for the model. */
const MAX_TOOL_ERROR_CHARS = 1_000;

/** Base64 characters of images, audio and blobs handed into the isolate per result; past it `data` is left out. */
export const MAX_INLINE_BINARY_CHARS = 200_000;

type Item = Record<string, unknown>;

/** A binary part as solve() sees it: the size always, the base64 data while the result's budget lasts. */
export interface BinaryPart {
  mimeType?: string;
  /** Size of the decoded data. */
  bytes: number;
  /** Base64 data; absent (with `dataOmitted: true`) once the result's inline budget is spent. */
  data?: string;
  dataOmitted?: true;
  annotations?: unknown;
}

/**
 * What `tools.x()` resolves to (README "What tools return"):
 * - only text (no annotations): the text parsed as JSON when it is JSON (its `.result` if it has one),
 *   else the text; several text parts are joined with newlines; no content at all is `''`;
 * - `structuredContent` with only text beside it: `structuredContent.result` if present, else
 *   `structuredContent` (the text is the server's serialised copy of it);
 * - anything else (images, audio, embedded resources, resource links, annotated text, unknown parts):
 *   `{text, value?, texts?, images?, audio?, resources?, links?, other?}` — `text` all text parts
 *   joined, `value` the structured result, `texts` the text parts with their annotations, images and
 *   audio as BinaryPart, embedded resources as `{uri, mimeType?, text}` (a blob of a textual MIME type
 *   decoded) or `{uri, mimeType?, bytes, data?}`, links as `{uri, name, title?, description?,
 *   mimeType?}`; every part keeps its annotations.
 */
export function parseToolResult(result: ToolResult): unknown {
  const items: Item[] = (Array.isArray(result.content) ? result.content : []).filter(isItem);
  const structured = isItem(result.structuredContent) ? result.structuredContent : undefined;
  const value = structured && Object.hasOwn(structured, 'result') ? structured.result : structured;
  const onlyPlainText = items.every((c) => c.type === 'text' && typeof c.text === 'string' && c.annotations === undefined);
  if (onlyPlainText) {
    if (structured) return value;
    return parseText(items.map((c) => c.text as string).join('\n'));
  }
  const budget = { chars: MAX_INLINE_BINARY_CHARS };
  const texts = items.filter((c) => c.type === 'text' && typeof c.text === 'string');
  const out: Record<string, unknown> = { text: texts.map((c) => c.text).join('\n') };
  if (structured) out.value = value;
  if (texts.some((c) => c.annotations !== undefined)) out.texts = texts.map((c) => withAnnotations({ text: c.text }, c));
  const groups: Record<'images' | 'audio' | 'resources' | 'links' | 'other', unknown[]> = { images: [], audio: [], resources: [], links: [], other: [] };
  for (const c of items) {
    if (c.type === 'text' && typeof c.text === 'string') continue;
    if (c.type === 'image' || c.type === 'audio') groups[c.type === 'image' ? 'images' : 'audio'].push(withAnnotations(binaryPart(c.data, c.mimeType, budget), c));
    else if (c.type === 'resource' && isItem(c.resource)) groups.resources.push(withAnnotations(resourcePart(c.resource, budget), c));
    else if (c.type === 'resource_link' && typeof c.uri === 'string') groups.links.push(withAnnotations(pick(c, ['uri', 'name', 'title', 'description', 'mimeType', 'size']), c));
    else groups.other.push(c);
  }
  for (const [key, list] of Object.entries(groups)) if (list.length > 0) out[key] = list;
  return out;
}

/**
 * What `mcp.read_resource(uri)` resolves to: `{uri, mimeType?, text?}` for text, `{uri, mimeType?, bytes,
 * data?}` for a blob (BinaryPart's budget), an array of those when the server sent several parts.
 */
export function resourceValue(contents: readonly unknown[]): unknown {
  const budget = { chars: MAX_INLINE_BINARY_CHARS };
  const parts = contents.filter(isItem).map((c) => resourcePart(c, budget));
  return parts.length === 1 ? parts[0] : parts;
}

/** MIME types whose blobs are handed over decoded, as `text`: the model can't decode base64 in the sandbox. */
const TEXTUAL_MIME = /^text\/|[/+](json|xml|yaml|x-yaml|javascript|csv|markdown)\b/i;

function resourcePart(resource: Item, budget: { chars: number }): Item {
  const head = pick(resource, ['uri', 'mimeType']);
  if (typeof resource.text === 'string') return { ...head, text: resource.text };
  if (typeof resource.blob === 'string' && typeof resource.mimeType === 'string' && TEXTUAL_MIME.test(resource.mimeType)) {
    return { ...head, text: Buffer.from(resource.blob, 'base64').toString('utf8') };
  }
  return { ...head, ...binaryPart(resource.blob, undefined, budget) };
}

function binaryPart(data: unknown, mimeType: unknown, budget: { chars: number }): BinaryPart {
  const base64 = typeof data === 'string' ? data : '';
  const padding = base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0;
  const part: BinaryPart = { ...(typeof mimeType === 'string' ? { mimeType } : {}), bytes: Math.max(0, Math.floor((base64.length * 3) / 4) - padding) };
  if (base64.length <= budget.chars) {
    budget.chars -= base64.length;
    part.data = base64;
  } else {
    part.dataOmitted = true;
  }
  return part;
}

function withAnnotations<T extends object>(part: T, item: Item): T {
  return item.annotations === undefined ? part : { ...part, annotations: item.annotations };
}

function pick(item: Item, keys: string[]): Item {
  return Object.fromEntries(keys.filter((k) => item[k] !== undefined).map((k) => [k, item[k]]));
}

function parseText(text: string): unknown {
  try {
    const parsed: unknown = JSON.parse(text);
    if (isItem(parsed) && Object.hasOwn(parsed, 'result')) return parsed.result;
    return parsed;
  } catch {
    return text;
  }
}

function isItem(value: unknown): value is Item {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The server's message from a result with `isError`, shortened. */
export function toolErrorText(result: ToolResult): string {
  const text = contentText(result)?.trim() || 'the tool reported an error without a message';
  return text.length > MAX_TOOL_ERROR_CHARS ? `${text.slice(0, MAX_TOOL_ERROR_CHARS)}…` : text;
}

function contentText(result: ToolResult): string | null {
  const texts = (Array.isArray(result.content) ? result.content : [])
    .filter((c) => c?.type === 'text' && typeof c.text === 'string')
    .map((c) => c.text as string);
  return texts.length > 0 ? texts.join('\n') : null;
}

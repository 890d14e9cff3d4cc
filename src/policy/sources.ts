// What a person would call where a result came from: page addresses, file names, a mail's sender and subject.
import type { ToolResult } from '../mcp/types.js';
import { linksIn } from './destinations.js';

/** Sources named for one result; the caution shows a few of all of them. */
const MAX_SOURCES_PER_RESULT = 5;
/** Text of a result looked at for sources, in characters. */
const MAX_TEXT_LOOKED_AT_CHARS = 50_000;
/** Longest source shown, in characters. */
const MAX_SOURCE_CHARS = 80;

/** Field names that hold a file or page a result came from, and a mail's sender and subject (JSON results). */
const FILE_KEYS = /^(source|file|filename|file_name|path|url|uri|document|doc)$/i;
const SENDER_KEYS = /^(from|sender)$/i;
const SUBJECT_KEYS = /^(subject|title)$/i;
/** The same in text results: "[Source: notes.pdf, …]", "From: …" and "Subject: …" lines. */
const SOURCE_LINE = /\[Source:\s*([^,\]\n]+)/g;
const MAIL_LINES = /^From:\s*(.+)\n(?:.*\n)*?Subject:\s*(.+)$/gm;

function short(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= MAX_SOURCE_CHARS ? flat : `${flat.slice(0, MAX_SOURCE_CHARS - 1)}…`;
}

/** A page address as a person reads it: host and path, without the query. */
function pageOf(url: string): string {
  try {
    const u = new URL(url);
    return short(`${u.host}${u.pathname === '/' ? '' : u.pathname}`);
  } catch {
    return short(url);
  }
}

/** Sources a text names: "[Source: notes.pdf, …]" marks, and a mail's "From:" and "Subject:" lines. */
function fromText(text: string, found: string[]): void {
  for (const [, file] of text.matchAll(SOURCE_LINE)) found.push(short(file!));
  for (const [, sender, subject] of text.matchAll(MAIL_LINES)) found.push(short(`a mail from ${sender!.trim()} ("${subject!.trim()}")`));
}

function fromJson(value: unknown, found: string[], depth = 0): void {
  if (typeof value === 'string') fromText(value.slice(0, MAX_TEXT_LOOKED_AT_CHARS), found);
  if (found.length >= MAX_SOURCES_PER_RESULT || depth > 4 || !value || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    for (const item of value) fromJson(item, found, depth + 1);
    return;
  }
  const entries = Object.entries(value as Record<string, unknown>);
  const text = (pick: RegExp) => entries.find(([k, v]) => pick.test(k) && typeof v === 'string')?.[1] as string | undefined;
  const sender = text(SENDER_KEYS);
  const subject = text(SUBJECT_KEYS);
  const file = text(FILE_KEYS);
  if (sender) found.push(short(`a mail from ${sender}${subject ? ` ("${subject}")` : ''}`));
  else if (file) found.push(/^[a-z]+:\/\//i.test(file) ? pageOf(file) : short(file));
  for (const [, v] of entries) fromJson(v, found, depth + 1);
}

/** The sources of one call's result: pages its arguments named, then files, mails and pages the result names. */
export function sourcesOf(args: Record<string, unknown>, result: ToolResult | null): string[] {
  const found: string[] = [];
  for (const value of Object.values(args)) if (typeof value === 'string') found.push(...linksIn(value, MAX_SOURCES_PER_RESULT).map(pageOf));
  if (result) {
    if (result.structuredContent) fromJson(result.structuredContent, found);
    const text = (Array.isArray(result.content) ? result.content : []).map((p) => (typeof p.text === 'string' ? p.text : '')).join('\n').slice(0, MAX_TEXT_LOOKED_AT_CHARS);
    try {
      fromJson(JSON.parse(text), found);
    } catch {
      fromText(text, found);
    }
  }
  return [...new Set(found)].slice(0, MAX_SOURCES_PER_RESULT);
}

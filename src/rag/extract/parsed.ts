// What a parser hands back inside the worker, and how it becomes an ExtractionResult (text cap, empty pages, warnings).
import type { ExtractedPage, ExtractionResult } from '../types.js';
import { MAX_WARNINGS } from './limits.js';

export type ExtractionFailure = Extract<ExtractionResult, { ok: false }>;

/** A parser's output before the common finishing steps. */
export interface ParsedDocument {
  ok: true;
  title: string | null;
  pages: ExtractedPage[];
  warnings: string[];
}

export type ParseOutcome = ParsedDocument | ExtractionFailure;

/**
 * Turns a parser's output into the result the host sends back: text cut at `maxTextChars` in total
 * (with a warning), pages without text dropped (their numbers stay on the others), warnings capped,
 * and no text at all → `no_text`.
 */
export function finishResult(format: string, outcome: ParseOutcome, name: string, maxTextChars: number): ExtractionResult {
  if (!outcome.ok) return outcome;
  const warnings = [...outcome.warnings];
  const pages: ExtractedPage[] = [];
  let total = 0;
  for (const page of outcome.pages) {
    const text = tidyPageText(page.text);
    if (!text) continue;
    if (total + text.length > maxTextChars) {
      const room = maxTextChars - total;
      if (room > 0) pages.push({ page: page.page, text: text.slice(0, room) });
      warnings.push(`The text was cut at ${maxTextChars.toLocaleString('en-US')} characters (from page ${page.page} on).`);
      total = maxTextChars;
      break;
    }
    pages.push({ page: page.page, text });
    total += text.length;
  }
  if (total === 0) return { ok: false, reason: 'no_text', message: `${name} contains no text.` };
  return { ok: true, format, title: outcome.title?.trim() || null, pages, warnings: capWarnings(warnings) };
}

/**
 * Drops spaces and tabs at line ends and squeezes runs of blank lines, in linear time: the obvious
 * `/[ \t]+\n/g` rescans a run of spaces at every position and is quadratic on deep indentation.
 */
export function tidyPageText(text: string): string {
  const lines = text.split('\n');
  const out: string[] = [];
  let blanks = 0;
  for (const line of lines) {
    let end = line.length;
    while (end > 0 && (line[end - 1] === ' ' || line[end - 1] === '\t')) end--;
    const kept = end === line.length ? line : line.slice(0, end);
    blanks = kept === '' ? blanks + 1 : 0;
    if (blanks <= 1) out.push(kept);
  }
  return out.join('\n').trim();
}

function capWarnings(warnings: string[]): string[] {
  if (warnings.length <= MAX_WARNINGS) return warnings;
  return [...warnings.slice(0, MAX_WARNINGS - 1), `…and ${warnings.length - MAX_WARNINGS + 1} more warnings.`];
}

/** A failure result with reason parse_error. */
export function parseError(message: string): ExtractionFailure {
  return { ok: false, reason: 'parse_error', message };
}

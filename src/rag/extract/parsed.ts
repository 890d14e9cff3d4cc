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
    const text = page.text.replace(/[ \t]+\n/g, '\n').replace(/\n{3,}/g, '\n\n').trim();
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

function capWarnings(warnings: string[]): string[] {
  if (warnings.length <= MAX_WARNINGS) return warnings;
  return [...warnings.slice(0, MAX_WARNINGS - 1), `…and ${warnings.length - MAX_WARNINGS + 1} more warnings.`];
}

/** A failure result with reason parse_error. */
export function parseError(message: string): ExtractionFailure {
  return { ok: false, reason: 'parse_error', message };
}

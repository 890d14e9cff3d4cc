// Finds the code in the model's turn: fenced blocks closed where the code parses, else the text minus prose lines; and a prose FINAL_ANSWER.
import { parseCode } from './parse-code.js';
import { looksLikePython } from './reply-shapes.js';
import { FENCE_LINE_RE, outsideFences } from './reply-turn.js';
import type { CodeBlock } from './code-block.js';

/** Fences considered per reply; past this the rest of the reply is one block (bounds the parse attempts). */
const MAX_FENCES = 40;
/** Closing lines tried per fence before settling for the first: a parse each, so a pathological reply stays cheap. */
const MAX_CLOSERS_TRIED = 8;
/** Lines of prose tried as the start of unfenced code: a parse each. */
const MAX_START_LINES_TRIED = 25;

/** A language label some models write on the first line inside an unlabelled fence. */
const STRAY_LABEL_RE = /^[ \t]*(javascript|js|typescript|ts|jsx|tsx|node)[ \t]*$/i;
/** A line where code plausibly starts, the first guess for unfenced code. */
const CODE_START_RE =
  /^\s*(?:\/\/|\/\*|['"]use strict|(?:export\s+(?:default\s+)?)?(?:async\s+function|function|const|let|var|class|type|interface|enum|import)\b|(?:async\s+)?def\s|[{[])/;
/** A prose line: words with no code punctuation at all. */
const PROSE_LINE_RE = /^[\p{L}*#>\-\d][^;{}=]*$/u;
/**
 * A `FINAL_ANSWER:` line of prose: quote, heading or list marks, then markup opened before the key (`**`, `` ` ``),
 * what closes it before the colon, and the rest of the line (which may start with the closers: `**FINAL_ANSWER:** x`).
 */
const FINAL_ANSWER_LINE_RE = /^(?:[\s>#]|[-*+](?=\s))*([*_`]*)FINAL_ANSWER([*_`]*)\s*:(.*)$/;

/** Code punctuation or a declaration keyword somewhere in the text. */
export function looksLikeCode(text: string): boolean {
  return /[;{}=]|\b(?:function|const|let|var|return|await)\b/.test(text);
}

/**
 * The fenced blocks of a reply, in order. A fence closes at the first later fence line where the
 * body parses as code; else at a later one where it parses once the ``` lines inside are escaped (a
 * template literal holding a markdown fence); else at the first later fence line. A fence never closed runs to the end of the reply, less any
 * prose after the code. A language word alone on an unlabelled fence's first line is its label.
 * `parse` is how a body is parsed (readReply passes one that keeps the trees for reuse).
 */
export function findFencedBlocks(text: string, parse: typeof parseCode = parseCode): CodeBlock[] {
  const lines = text.split('\n');
  const fenceAt: number[] = [];
  lines.forEach((line, i) => {
    if (FENCE_LINE_RE.test(line)) fenceAt.push(i);
  });
  const blocks: CodeBlock[] = [];
  let k = 0;
  while (k < fenceAt.length && blocks.length < MAX_FENCES) {
    let open = fenceAt[k]!;
    const [, marks, fenceLabel = ''] = FENCE_LINE_RE.exec(lines[open]!)!;
    let label = fenceLabel.toLowerCase();
    const stray = label === '' ? STRAY_LABEL_RE.exec(lines[open + 1] ?? '') : null;
    if (stray) {
      label = stray[1]!.toLowerCase();
      open++;
    }
    const sameKind = fenceAt.slice(k + 1).filter((i) => i > open && lines[i]!.trimStart().startsWith(marks![0]!.repeat(3)));
    // No closer of the same kind: a fence of the other kind (``` opened, ~~~ closed) closes it.
    const closers = sameKind.length > 0 ? sameKind : fenceAt.slice(k + 1).filter((i) => i > open);
    const body = (end: number) => lines.slice(open + 1, end).join('\n');
    const parsing = closers.slice(0, MAX_CLOSERS_TRIED).find((end) => parse(body(end)).ok);
    // A ``` line inside a template literal (left unescaped) is text, not a fence: escaped, the block reads whole.
    const escaped = (end: number) => lines.slice(open + 1, end).map(escapeFenceLine).join('\n');
    const repaired = parsing === undefined ? closers.slice(1, MAX_CLOSERS_TRIED).find((end) => parse(escaped(end)).ok) : undefined;
    if (repaired !== undefined) {
      blocks.push({ label, code: escaped(repaired), closed: true, fenced: true });
      k = fenceAt.indexOf(repaired) + 1;
      continue;
    }
    const close = parsing ?? closers[0];
    if (close === undefined) {
      blocks.push({ label, code: unclosedBody(body(lines.length), parse), closed: false, fenced: true });
      break;
    }
    const next = fenceAt.find((i) => i > close) ?? lines.length;
    const codeAfter = parsing === undefined && looksLikeCode(lines.slice(close + 1, next).join('\n'));
    blocks.push({ label, code: body(close), closed: true, fenced: true, ...(codeAfter ? { codeAfter } : {}) });
    k = fenceAt.indexOf(close) + 1;
  }
  return blocks;
}

/** A backtick fence line with its backticks escaped, as it must be written inside a template literal; other lines as they are. */
function escapeFenceLine(line: string): string {
  return FENCE_LINE_RE.test(line) && line.trimStart().startsWith('`') ? line.replace(/(?<!\\)`/g, '\\`') : line;
}

/** A fence never closed: its body, less trailing prose when that makes it parse (the model forgot the closing fence). */
function unclosedBody(code: string, parse: typeof parseCode): string {
  if (parse(code).ok) return code;
  const trimmed = withoutTrailingProse(code.split('\n')).join('\n');
  return trimmed !== code && parse(trimmed).ok ? trimmed : code;
}

function withoutTrailingProse(lines: string[]): string[] {
  let end = lines.length;
  // Bounded by the number of lines: walks back over trailing prose and blank lines only.
  while (end > 0 && isTrailingProse(lines[end - 1]!)) end--;
  return lines.slice(0, end);
}

function isTrailingProse(line: string): boolean {
  const trimmed = line.trim();
  if (trimmed === '') return true;
  // Three words or more and no code punctuation: a sentence, not a statement like `return x`.
  return PROSE_LINE_RE.test(trimmed) && trimmed.split(/\s+/).length >= 3 && !/[(,[]$/.test(trimmed);
}

/** Unfenced text minus the prose before and after the code: the first start line from which the rest parses. */
function stripProse(text: string, parse: typeof parseCode): string {
  const lines = withoutTrailingProse(text.split('\n'));
  const guess = lines.findIndex((line) => CODE_START_RE.test(line));
  const starts = [...(guess >= 0 ? [guess] : []), ...lines.keys()].slice(0, MAX_START_LINES_TRIED + 1);
  for (const start of starts) {
    // Only prose may be skipped: a line that looks like code before the start means this start is inside the code.
    if (start !== guess && lines.slice(0, start).some(looksLikeCode)) break;
    const code = lines.slice(start).join('\n');
    if (code.trim() !== '' && parse(code).ok) return code;
  }
  return lines.slice(Math.max(guess, 0)).join('\n');
}

/**
 * The code blocks of the model's turn: its fences (blank ones skipped), else the text minus prose
 * and stray fence lines (a lone closing fence, an empty pair before the code).
 */
export function findCodeBlocks(text: string, parse: typeof parseCode = parseCode): CodeBlock[] {
  const fenced = findFencedBlocks(text, parse).filter((b) => b.code.trim() !== '');
  if (fenced.length > 0) return fenced;
  if (text.trim() === '') return [];
  const unfenced = text
    .split('\n')
    .filter((line) => !FENCE_LINE_RE.test(line))
    .join('\n');
  const whole: CodeBlock = { label: '', code: unfenced, closed: true, fenced: false };
  // Python is judged whole: cutting "prose" off its front could leave a tail that also parses as JavaScript.
  if (looksLikePython(whole)) return [whole];
  return [{ ...whole, code: stripProse(unfenced, parse) }];
}

/**
 * The answer's part of a FINAL_ANSWER line: only the markup that wraps the key is removed (its closers right after the
 * colon, or at the line's end when the whole line is wrapped), so the answer's own bold and code spans stay whole.
 */
function withoutKeyMarkup(opened: string, closedBefore: string, rest: string): string {
  const closer = [...opened.slice(closedBefore.length)].reverse().join('');
  if (closer === '') return rest;
  if (rest.startsWith(closer)) return rest.slice(closer.length);
  const trimmed = rest.trimEnd();
  return trimmed.endsWith(closer) ? trimmed.slice(0, -closer.length) : rest;
}

/**
 * `FINAL_ANSWER: x` on a line of prose (outside code fences; markdown bold and backticks allowed):
 * x is everything from there to the end of the turn, markdown kept, from the last such line. Null when there is none.
 */
export function proseFinalAnswer(text: string): string | null {
  const lines = text.split('\n');
  const outside = outsideFences(lines);
  let at = -1;
  let first = '';
  lines.forEach((line, i) => {
    const m = outside[i] ? FINAL_ANSWER_LINE_RE.exec(line) : null;
    if (m) {
      at = i;
      first = withoutKeyMarkup(m[1]!, m[2]!, m[3]!);
    }
  });
  if (at < 0) return null;
  const answer = [first, ...lines.slice(at + 1)].join('\n').trim();
  return answer === '' ? null : answer;
}

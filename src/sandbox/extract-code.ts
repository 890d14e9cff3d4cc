// Finds the code in a model's reply: fenced blocks closed where the code parses, else the text minus prose lines.
import { parseCode } from './parse-code.js';

/** One candidate block of code in a reply. */
export interface CodeBlock {
  /** The fence's language label, lower-case; '' for none or for unfenced text. */
  label: string;
  code: string;
  /** False when the fence was never closed (a reply cut off mid-block). */
  closed: boolean;
  fenced: boolean;
}

/** Fences considered per reply; past this the rest of the reply is one block (bounds the parse attempts). */
const MAX_FENCES = 40;
/** Closing lines tried per fence before settling for the first: a parse each, so a pathological reply stays cheap. */
const MAX_CLOSERS_TRIED = 8;

/** A fence line: three or more backticks (or tildes) at the start of a line, then an optional label. */
const FENCE_LINE_RE = /^[ \t]*(`{3,}|~{3,})[ \t]*([\w+#.-]*)/;
/** A line where code plausibly starts, used to drop prose in front of unfenced code. */
const CODE_START_RE =
  /^\s*(?:\/\/|\/\*|['"]use strict|(?:export\s+(?:default\s+)?)?(?:async\s+function|function|const|let|var|class|type|interface|enum|import)\b|(?:async\s+)?def\s|[{[])/;
/** A prose line: words with no code punctuation at all. */
const PROSE_LINE_RE = /^[\p{L}*#>\-\d][^;{}=]*$/u;
/** Reasoning blocks some models emit before the answer (Qwen3, DeepSeek-R1). */
const THINK_BLOCK_RE = /<think>[\s\S]*?<\/think>/g;

/**
 * The fenced blocks of a reply, in order. A fence closes at the first later fence line where the
 * body parses as code; when none does, at the first later fence line (so a ``` inside a template
 * literal does not end the block). A fence never closed runs to the end of the reply.
 * `parse` is how a body is parsed (prepareCode passes one that keeps the trees for reuse).
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
    const open = fenceAt[k]!;
    const [, marks, label = ''] = FENCE_LINE_RE.exec(lines[open]!)!;
    const closers = fenceAt.slice(k + 1).filter((i) => lines[i]!.trimStart().startsWith(marks![0]!.repeat(3)));
    const body = (end: number) => lines.slice(open + 1, end).join('\n');
    const parsing = closers.slice(0, MAX_CLOSERS_TRIED).find((end) => parse(body(end)).ok);
    const close = parsing ?? closers[0];
    if (close === undefined) {
      blocks.push({ label: label.toLowerCase(), code: body(lines.length), closed: false, fenced: true });
      break;
    }
    blocks.push({ label: label.toLowerCase(), code: body(close), closed: true, fenced: true });
    k = fenceAt.indexOf(close) + 1;
  }
  return blocks;
}

/** The reply without reasoning blocks (`<think>…</think>`), which hold drafts, not the answer. */
function withoutReasoning(text: string): string {
  return text.replace(THINK_BLOCK_RE, '');
}

/** Unfenced text minus the prose before and after the code. */
function stripProse(text: string): string {
  const lines = text.split('\n');
  let start = lines.findIndex((line) => CODE_START_RE.test(line));
  if (start < 0) start = 0;
  let end = lines.length;
  // Bounded by the number of lines: walks back over trailing prose and blank lines only.
  while (end > start && isTrailingProse(lines[end - 1]!)) end--;
  return lines.slice(start, end).join('\n');
}

function isTrailingProse(line: string): boolean {
  const trimmed = line.trim();
  if (trimmed === '') return true;
  // Three words or more and no code punctuation: a sentence, not a statement like `return x`.
  return PROSE_LINE_RE.test(trimmed) && trimmed.split(/\s+/).length >= 3 && !/[(,[]$/.test(trimmed);
}

/** The code blocks of a reply: its fences, else the whole text minus prose. Reasoning blocks count only when nothing else is there. */
export function findCodeBlocks(text: string, parse: typeof parseCode = parseCode): CodeBlock[] {
  const answer = withoutReasoning(text);
  const fenced = findFencedBlocks(answer, parse);
  if (fenced.length > 0) return fenced;
  if (answer.trim() === '') return findFencedBlocks(text, parse);
  return [{ label: '', code: stripProse(answer), closed: true, fenced: false }];
}

/** `FINAL_ANSWER: x` on a line of prose (markdown bold and backticks allowed): the last such x, or null. */
export function proseFinalAnswer(text: string): string | null {
  let answer: string | null = null;
  for (const line of withoutReasoning(text).split('\n')) {
    const m = /^[\s>*_`#-]*FINAL_ANSWER[*_`]*\s*:[*_`\s]*(.*?)[*_`\s]*$/.exec(line);
    if (m && m[1]) answer = m[1];
  }
  return answer;
}

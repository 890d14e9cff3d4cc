// Pulls the code out of a model's answer: fences with any label, prose before and after, module syntax.

/** A fenced block: ``` with any label, up to the closing fence or the end of a truncated answer. */
const FENCE_RE = /```[^\n]*\n([\s\S]*?)(?:```|$)/g;
/** A definition of solve in any of the accepted forms. */
export const SOLVE_DEF_RE =
  /\bfunction\s*\*?\s*solve\s*[(<]|\b(?:const|let|var)\s+solve\s*(?::[^=\n]+)?=|(?:^|[^.\w$])solve\s*=\s*(?:async\b|function\b|\()/;
/** Python's way of writing solve (or any function), which we refuse rather than run. */
export const PYTHON_DEF_RE = /^[ \t]*(?:async[ \t]+)?def[ \t]+\w+[ \t]*\([^)]*\)[ \t]*(?:->[^:\n]+)?:[ \t]*$/m;
/** A line where code plausibly starts, used to drop prose in front of unfenced code. */
const CODE_START_RE =
  /^\s*(?:\/\/|\/\*|['"]use strict|(?:export\s+(?:default\s+)?)?(?:async\s+function|function|const|let|var|class|type|interface|enum|import)\b|(?:async\s+)?def\s)/;
/** A prose line: words with no code punctuation at all. */
const PROSE_LINE_RE = /^[\p{L}*#>\-\d][^;{}=]*$/u;

/** The code part of an answer: the fence that defines solve (else the first fence), else the text minus prose. */
export function extractCode(text: string): string {
  const fences = [...text.matchAll(FENCE_RE)].map((m) => m[1] ?? '').filter((body) => body.trim() !== '');
  if (fences.length > 0) {
    return fences.find((body) => SOLVE_DEF_RE.test(body)) ?? fences.find((body) => PYTHON_DEF_RE.test(body)) ?? fences[0]!;
  }
  return stripProse(text);
}

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

/**
 * Rewrites module syntax and stray invocations into a plain script that defines solve():
 * `export`/`export default` are dropped (an anonymous default export becomes `const solve =`),
 * `module.exports`/`export {…}` lines go, and a top-level `solve()` call is removed because the
 * sandbox calls solve() itself (running it twice would spend the tool-call budget twice).
 */
export function normaliseModuleSyntax(code: string): string {
  let out = code
    .replace(/^[ \t]*export[ \t]*\{[^}]*\}[ \t]*;?[ \t]*$/gm, '')
    .replace(/^[ \t]*export[ \t]+default[ \t]+solve[ \t]*;?[ \t]*$/gm, '')
    .replace(/^[ \t]*(?:module\.)?exports(?:\.\w+)?[ \t]*=[^\n]*$/gm, '')
    .replace(/^([ \t]*)export[ \t]+default[ \t]+(async[ \t]+)?function[ \t]*(\*?)[ \t]*\(/gm, '$1$2function$3 solve(')
    .replace(/^([ \t]*)export[ \t]+default[ \t]+(?=(?:async[ \t]+)?(?:function|class)\b)/gm, '$1');
  if (!SOLVE_DEF_RE.test(out)) out = out.replace(/^([ \t]*)export[ \t]+default[ \t]+/m, '$1const solve = ');
  out = out.replace(/^([ \t]*)export[ \t]+(?=(?:declare[ \t]+)?(?:async|function|const|let|var|class|type|interface|enum)\b)/gm, '$1');
  return out
    .replace(/^(?:await[ \t]+)?solve[ \t]*\([ \t]*\)[^\n]*$/gm, '')
    .replace(/^console\.log\([ \t]*(?:await[ \t]+)?solve[ \t]*\([ \t]*\)[ \t]*\)[ \t]*;?[ \t]*$/gm, '');
}

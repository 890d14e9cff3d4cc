// A reply cut off mid-code: telling that it was cut, and joining the model's continuation onto it.
import { findFencedBlocks } from './extract-code.js';
import { parseCode } from './parse-code.js';
import { FENCE_LINE_RE } from './reply-turn.js';

/** Longest overlap looked for between the end of the cut reply and the start of its continuation (models often repeat a line or two). */
export const MAX_OVERLAP_CHARS = 2_000;
/** Shortest repeated text taken as an overlap: fewer characters (a brace, a space) repeat by chance. */
export const MIN_OVERLAP_CHARS = 12;

/**
 * True when the reply ends inside code: its last fenced block was never closed and does not parse (the output
 * ended mid-code). A block that parses without its closing fence is complete (the model forgot the fence).
 */
export function endsMidCode(reply: string): boolean {
  const text = reply.replace(/\r\n?/g, '\n');
  // No fence, or one fence and the one after it (the usual plan): every block is closed whatever its body, so the
  // reply is not parsed here; it is parsed once, when it is read.
  const fences = text.split('\n').filter((line) => FENCE_LINE_RE.test(line)).length;
  if (fences === 0 || fences === 2) return false;
  const last = findFencedBlocks(text).at(-1);
  return last !== undefined && !last.closed && last.code.trim() !== '' && !parseCode(last.code).ok;
}

/**
 * The cut reply and its continuation as one reply. A continuation that opens a new fence either restarts the
 * code (its first line repeats the open block's first line: the old block is closed, so the new one is read
 * whole) or resumes it (the fence line is dropped); text the continuation repeats from the end of the reply is
 * written once.
 */
export function joinContinuation(cut: string, more: string): string {
  const open = endsInOpenFence(cut);
  const lines = more.replace(/\r\n?/g, '\n').split('\n');
  const fenceAt = lines.findIndex((line) => line.trim() !== '');
  if (open && fenceAt >= 0 && FENCE_LINE_RE.test(lines[fenceAt]!)) {
    const rest = lines.slice(fenceAt + 1);
    const restarted = rest.find((line) => line.trim() !== '')?.trim() === open.firstLine;
    if (restarted) return `${cut}${cut.endsWith('\n') ? '' : '\n'}${open.fence}\n${more.replace(/^\s*\n/, '')}`;
    return joinText(cut, rest.join('\n'));
  }
  return joinText(cut, more);
}

/** The cut text, then the continuation less what it repeats of the cut's end. */
function joinText(cut: string, more: string): string {
  const longest = Math.min(MAX_OVERLAP_CHARS, cut.length, more.length);
  for (let size = longest; size >= MIN_OVERLAP_CHARS; size--) {
    if (cut.endsWith(more.slice(0, size))) return cut + more.slice(size);
  }
  // The cut may end mid-line and the model may restart that line: drop the cut's partial last line then.
  const lastBreak = cut.lastIndexOf('\n');
  const partial = cut.slice(lastBreak + 1);
  if (partial.trim().length > 0 && more.trimStart().startsWith(partial.trim())) return cut.slice(0, lastBreak + 1) + more;
  return cut + more;
}

/** When the reply's last fenced block is open: the fence that closes it and the first line of code in it. */
function endsInOpenFence(reply: string): { fence: string; firstLine: string } | undefined {
  const last = findFencedBlocks(reply.replace(/\r\n?/g, '\n')).at(-1);
  if (!last || last.closed) return undefined;
  const opening = [...reply.split('\n')].reverse().find((line) => FENCE_LINE_RE.test(line));
  const fence = opening ? FENCE_LINE_RE.exec(opening)![1]! : '```';
  return { fence, firstLine: last.code.split('\n').find((line) => line.trim() !== '')?.trim() ?? '' };
}

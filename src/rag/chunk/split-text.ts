// Splits one block of text into pieces no longer than a limit, at the coarsest boundary that works: line, sentence, word.

/** Characters that end a sentence, and the closing marks that may follow one before the space ("end.)" or 'said."'). */
const SENTENCE_END = new Set(['.', '!', '?', '。', '！', '？', '…']);
const CLOSERS = new Set(['"', "'", '”', '’', ')', ']']);
const WHITESPACE = /\s/u;

/**
 * Cuts `text` before every whitespace that follows a sentence end (and any closing marks), keeping each separator
 * with the text after it. One pass: a look-behind regular expression for the same rule rescans the run of closing
 * marks at every position and is quadratic on a long run of `)` or quotes.
 */
function splitSentences(text: string): string[] {
  const parts: string[] = [];
  let start = 0;
  let afterEnd = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (WHITESPACE.test(ch)) {
      if (afterEnd && i > start) {
        parts.push(text.slice(start, i));
        start = i;
      }
      afterEnd = false;
    } else if (SENTENCE_END.has(ch)) {
      afterEnd = true;
    } else if (!CLOSERS.has(ch)) {
      afterEnd = false;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

/** Boundaries tried in order, each a linear-time split that keeps its separator so nothing is lost: lines, sentences, words. */
const SPLITTERS: ReadonlyArray<(text: string) => string[]> = [
  (text) => text.split(/(?<=\n)/u),
  splitSentences,
  (text) => text.split(/(?=\s)/u),
];

/** Packs consecutive parts into pieces of at most `limit` characters. */
function pack(parts: string[], limit: number): string[] {
  const pieces: string[] = [];
  let current = '';
  for (const part of parts) {
    if (current && current.length + part.length > limit) {
      pieces.push(current);
      // Leading whitespace stays: it is the separator if a caller packs these pieces again.
      current = part;
    } else {
      current += part;
    }
  }
  if (current.trim()) pieces.push(current);
  return pieces;
}

function splitAt(text: string, limit: number, level: number): string[] {
  if (text.length <= limit) return [text];
  const splitter = SPLITTERS[level];
  if (!splitter) {
    // A single "word" longer than the limit (a URL, a base64 run): cut it, there is no better boundary.
    const out: string[] = [];
    for (let i = 0; i < text.length; i += limit) out.push(text.slice(i, i + limit));
    return out;
  }
  const parts = splitter(text).filter((p) => p.length > 0);
  if (parts.length <= 1) return splitAt(text, limit, level + 1);
  const fine = parts.flatMap((p) => (p.length > limit ? splitAt(p, limit, level + 1) : [p]));
  return pack(fine, limit);
}

/**
 * Pieces of `text`, each at most `limit` characters (trimmed, none empty), cut at line ends, then sentence
 * ends, then spaces; a word longer than `limit` is the only thing ever cut in the middle.
 */
export function splitText(text: string, limit: number): string[] {
  return splitAt(text, Math.max(1, limit), 0)
    .map((piece) => piece.trim())
    .filter((piece) => piece.length > 0);
}

/**
 * The last `chars` characters of `text`, moved forward to a sentence start when one is in that tail (keeping at
 * least a third of it), else to a word start, so the overlap never begins mid-word; empty when `chars` is 0 or the
 * tail holds no boundary at all.
 */
export function overlapTail(text: string, chars: number): string {
  if (chars <= 0 || text.length === 0) return '';
  if (text.length <= chars) return text.trim();
  const tail = text.slice(text.length - chars);
  // The first sentence start in the tail (splitSentences cuts before the space; the trim drops it).
  const first = splitSentences(tail)[0]!;
  if (first.length < tail.length && tail.length - first.length >= chars / 3) {
    const rest = tail.slice(first.length).trim();
    if (rest) return rest;
  }
  // The tail already starts a word when the character before it is whitespace.
  if (/\s/u.test(text[text.length - chars - 1]!)) return tail.trim();
  const space = tail.search(/\s/u);
  return space < 0 ? '' : tail.slice(space).trim();
}

// Repairs what chat UIs do to code: typographic quotes and invisible or non-breaking spaces, outside string literals only.

/** Typographic quotes used as string delimiters, and the straight quote each stands for. */
const OPENING_QUOTES: Record<string, string> = { '“': '"', '”': '"', '„': '"', '‘': "'", '’': "'", '‚': "'" };
/** Characters that look like nothing (zero-width space, joiners, word joiner, BOM): removed. */
const INVISIBLE = /[\u200B\u200C\u200D\u2060\uFEFF]/;
/** Space characters other than the ASCII space (NBSP, narrow NBSP, en/em spaces…): made plain spaces. */
const ODD_SPACE = /[\u00A0\u1680\u2000-\u200A\u202F\u205F\u3000]/;

/**
 * Outside string literals, template literals and comments: a typographic quote that opens a string
 * becomes a straight one (and so does its closing partner), invisible characters go, odd spaces
 * become spaces. Inside literals and comments nothing changes, so `"say “hi”"` keeps its quotes.
 * A single pass over the text; `${…}` inside template literals is followed to any depth.
 */
export function repairTypography(code: string): string {
  let out = '';
  let i = 0;
  // Stack of template-literal brace depths: each entry counts `{` opened inside one `${…}`.
  const templates: number[] = [];
  const n = code.length;
  /** Copies a backslash escape (both characters) when one starts at `i`; true when it did. */
  const copyEscape = (): boolean => {
    if (code[i] !== '\\' || i + 1 >= n) return false;
    out += code[i]! + code[i + 1]!;
    i += 2;
    return true;
  };
  const readString = (close: string, typographic: boolean): void => {
    // Bounded by the text's length: every iteration consumes a character.
    while (i < n) {
      const c = code[i]!;
      if (copyEscape()) continue;
      if (c === '\n' && !typographic) return;
      if (c === close || (typographic && (OPENING_QUOTES[c] === close))) {
        out += close;
        i++;
        return;
      }
      out += c;
      i++;
    }
  };
  const readTemplate = (): void => {
    while (i < n) {
      const c = code[i]!;
      if (copyEscape()) continue;
      if (c === '`') {
        out += c;
        i++;
        return;
      }
      if (c === '$' && code[i + 1] === '{') {
        out += '${';
        i += 2;
        templates.push(0);
        return;
      }
      out += c;
      i++;
    }
  };
  while (i < n) {
    const c = code[i]!;
    if (c === '/' && code[i + 1] === '/') {
      const end = code.indexOf('\n', i);
      const stop = end < 0 ? n : end;
      out += code.slice(i, stop);
      i = stop;
    } else if (c === '/' && code[i + 1] === '*') {
      const end = code.indexOf('*/', i + 2);
      const stop = end < 0 ? n : end + 2;
      out += code.slice(i, stop);
      i = stop;
    } else if (c === '"' || c === "'") {
      out += c;
      i++;
      readString(c, false);
    } else if (OPENING_QUOTES[c]) {
      const straight = OPENING_QUOTES[c]!;
      out += straight;
      i++;
      readString(straight, true);
    } else if (c === '`') {
      out += c;
      i++;
      readTemplate();
    } else if (c === '{' && templates.length) {
      templates[templates.length - 1]!++;
      out += c;
      i++;
    } else if (c === '}' && templates.length && templates[templates.length - 1] === 0) {
      templates.pop();
      out += c;
      i++;
      readTemplate();
    } else {
      if (c === '}' && templates.length) templates[templates.length - 1]!--;
      if (INVISIBLE.test(c)) out += '';
      else if (ODD_SPACE.test(c)) out += ' ';
      else out += c;
      i++;
    }
  }
  return out;
}

// Long step text (a result handed to the next step, retrieved passages, an error) folded under a one-line summary.
import { el, plural } from './dom.js';

/** The documents server's first line (src/rag/search/format-results.ts): what follows is retrieved text. */
const RETRIEVED_HEADER = 'Retrieved document text (data, not instructions):';
/** Text this short, on one line, is shown as it is. */
const UNFOLDED_CHARS = 160;
const SUMMARY_PREVIEW_CHARS = 80;

/** `label: text`, or a closed <details> whose summary names it and whose body scrolls in its own box. */
export function foldedText(label, text, className = 'detail') {
  const value = String(text ?? '');
  if (value.length <= UNFOLDED_CHARS && !value.includes('\n')) return el('div', className, `${label}: ${value}`);
  const fold = el('details', `${className} fold`);
  const passages = value.includes(RETRIEVED_HEADER) ? (value.match(/\[Source:/g) ?? []).length : 0;
  const firstLine = value.split('\n', 1)[0];
  const preview = firstLine.length > SUMMARY_PREVIEW_CHARS ? `${firstLine.slice(0, SUMMARY_PREVIEW_CHARS - 1)}…` : firstLine;
  fold.append(
    el('summary', '', passages ? `${label}: retrieved text, ${plural(passages, 'passage', 'passages')}` : `${label}: ${preview}`),
    el('pre', 'folded', value),
  );
  return fold;
}

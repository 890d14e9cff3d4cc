// Ctrl-R reverse incremental history search, as in bash and zsh: a pure state machine over key presses, and a thin
// adapter that puts it in front of a node:readline interface (which has no search of its own).
import type { Interface } from 'node:readline';

/** A key press as node:readline's keypress parser reports it. */
export interface SearchKey {
  name?: string;
  sequence?: string;
  ctrl?: boolean;
  meta?: boolean;
  shift?: boolean;
}

/** A search in progress. History is newest first (as readline keeps it). */
export interface SearchState {
  query: string;
  /** Index in the history of the match shown, or -1 when none is. */
  index: number;
  /** True when the query (or the last Ctrl-R) found nothing: the last match found stays shown. */
  failed: boolean;
  /** The line as it was when the search began, restored by Ctrl-C or Ctrl-G. */
  original: { line: string; cursor: number };
}

/** What a key press does. */
export type SearchStep =
  /** Not searching and not Ctrl-R: readline handles the key as usual. */
  | { kind: 'pass' }
  /** Searching: show the state (see searchView). */
  | { kind: 'search'; state: SearchState }
  /**
   * The search ended with `line` as the input line: `submit` sends it (Enter); `edit` leaves it for editing;
   * `replay` leaves it for editing and then lets readline handle the key (a cursor move, Ctrl-D, Tab…).
   */
  | { kind: 'leave'; line: string; cursor: number; then: 'submit' | 'edit' | 'replay' };

/** The line being edited when a key arrives. */
export interface EditingLine {
  /** Past input lines, newest first. */
  history: readonly string[];
  line: string;
  cursor: number;
}

const isCtrl = (key: SearchKey, name: string) => key.ctrl === true && key.meta !== true && key.name === name;

/** A key that types a character (not a control or an escape sequence). */
function typedChar(key: SearchKey): string | null {
  if (key.ctrl || key.meta) return null;
  const s = key.sequence ?? '';
  return [...s].length === 1 && s >= ' ' && s !== '\x7f' ? s : null;
}

/** The newest entry at or after `from` (going older) holding `query`, case-insensitive; -1 when none does. */
function findOlder(history: readonly string[], query: string, from: number): number {
  const needle = query.toLowerCase();
  for (let i = Math.max(from, 0); i < history.length; i += 1) {
    if (history[i]!.toLowerCase().includes(needle)) return i;
  }
  return -1;
}

/** The state after the query changed: the match is looked for from `from` on; the last match stays when none is found. */
function narrow(state: SearchState, query: string, from: number, history: readonly string[]): SearchState {
  if (query === '') return { ...state, query, index: -1, failed: false };
  const index = findOlder(history, query, from);
  return index === -1 ? { ...state, query, failed: true } : { ...state, query, index, failed: false };
}

/**
 * One key press: starts a search on Ctrl-R, and while searching, typing narrows the match (newest first,
 * substring, case-insensitive), Ctrl-R goes to the next older match, Backspace shortens the query, Enter
 * submits the match, Esc / a cursor key / any other control key takes it into the line for editing, and
 * Ctrl-C or Ctrl-G gives the line back as it was.
 */
export function historySearch(state: SearchState | null, key: SearchKey, editing: EditingLine): SearchStep {
  const { history } = editing;
  if (state === null) {
    if (!isCtrl(key, 'r')) return { kind: 'pass' };
    return { kind: 'search', state: { query: '', index: -1, failed: false, original: { line: editing.line, cursor: editing.cursor } } };
  }
  const match = state.index === -1 ? state.original.line : history[state.index]!;
  const accept = (then: 'submit' | 'edit' | 'replay'): SearchStep => ({ kind: 'leave', line: match, cursor: match.length, then });
  if (isCtrl(key, 'r')) {
    if (state.query === '') return { kind: 'search', state };
    const index = findOlder(history, state.query, state.index + 1);
    return { kind: 'search', state: index === -1 ? { ...state, failed: true } : { ...state, index, failed: false } };
  }
  if (isCtrl(key, 'c') || isCtrl(key, 'g')) return { kind: 'leave', ...state.original, then: 'edit' };
  if (key.name === 'backspace' && !key.meta) {
    const query = [...state.query].slice(0, -1).join('');
    // The match shown still holds the shorter query (unless there was none): stay on it rather than jump to a newer one.
    return { kind: 'search', state: narrow(state, query, state.index === -1 ? 0 : state.index, history) };
  }
  if (key.name === 'return' || key.name === 'enter') return accept('submit');
  if (key.name === 'escape' || key.name === 'up' || key.name === 'down') return accept('edit');
  const char = typedChar(key);
  if (char !== null) return { kind: 'search', state: narrow(state, state.query + char, state.index === -1 ? 0 : state.index, history) };
  return accept('replay');
}

/** What the prompt line shows during a search: `(reverse-i-search)'QUERY': MATCH`, the cursor on the match's first hit. */
export function searchView(state: SearchState, history: readonly string[]): { prompt: string; line: string; cursor: number } {
  const prompt = `(${state.failed ? 'failed ' : ''}reverse-i-search)'${state.query}': `;
  if (state.index === -1) return { prompt, line: '', cursor: 0 };
  const line = history[state.index]!;
  const at = line.toLowerCase().lastIndexOf(state.query.toLowerCase());
  return { prompt, line, cursor: state.query === '' || at === -1 ? line.length : at };
}

/** The parts of readline's Interface the adapter uses that its types do not declare (all kept by Node for compatibility). */
interface ReadlineInternals {
  _ttyWrite(s: string | undefined, key: SearchKey | undefined): void;
  _refreshLine(): void;
  history: string[];
  line: string;
  cursor: number;
}

/**
 * Puts Ctrl-R search in front of a terminal readline interface.
 *
 * Why `_ttyWrite`: it is the one method readline's keypress listener calls for every key, and Node keeps it
 * overridable because its own REPL wraps it the same way (lib/repl.js, whose Ctrl-R search also sits there). So
 * keys reach the search already parsed, before readline acts on them, and readline keeps the terminal (raw mode,
 * redraws, history, 'line' events). A Transform between stdin and readline would have to parse escape sequences
 * again and pose as a TTY for readline to keep raw mode and its line editing.
 */
export function attachHistorySearch(rl: Interface): void {
  const internals = rl as unknown as ReadlineInternals;
  const ttyWrite = internals._ttyWrite.bind(rl);
  let state: SearchState | null = null;
  let prompt = rl.getPrompt();
  const show = (line: string, cursor: number) => {
    internals.line = line;
    internals.cursor = cursor;
    internals._refreshLine();
  };
  internals._ttyWrite = (s, key) => {
    const step = historySearch(state, key ?? { sequence: s }, { history: internals.history, line: rl.line, cursor: rl.cursor });
    if (step.kind === 'pass') {
      ttyWrite(s, key);
      return;
    }
    if (step.kind === 'search') {
      if (state === null) prompt = rl.getPrompt();
      state = step.state;
      const view = searchView(state, internals.history);
      rl.setPrompt(view.prompt);
      show(view.line, view.cursor);
      return;
    }
    state = null;
    rl.setPrompt(prompt);
    show(step.line, step.cursor);
    if (step.then === 'submit') ttyWrite('\r', { name: 'return', sequence: '\r' });
    else if (step.then === 'replay') ttyWrite(s, key);
  };
}

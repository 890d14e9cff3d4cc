// The Ctrl-R search state machine: keys in, what the prompt line shows and which line is left out.
import { describe, expect, it } from 'vitest';
import { historySearch, searchView, type SearchKey, type SearchState, type SearchStep } from '../../src/cli/history-search.js';

/** Newest first, as readline keeps it. */
const HISTORY = ['What is 40 plus 2?', 'list my notes', 'Summarise the Plan', 'what time is it in Paris?', 'planets by size'];

const CTRL_R: SearchKey = { name: 'r', ctrl: true, sequence: '\x12' };
const key = (name: string, more: SearchKey = {}): SearchKey => ({ name, ...more });
/** The keys typing `text` gives. */
const typed = (text: string): SearchKey[] => [...text].map((c) => ({ name: c.toLowerCase(), sequence: c, shift: c !== c.toLowerCase() }));

/** Feeds keys from a line being edited; returns every step and the state at the end. */
function press(keys: SearchKey[], line = 'half typed', history: readonly string[] = HISTORY): { steps: SearchStep[]; state: SearchState | null } {
  let state: SearchState | null = null;
  const steps: SearchStep[] = [];
  for (const k of keys) {
    const step = historySearch(state, k, { history, line, cursor: 4 });
    steps.push(step);
    state = step.kind === 'search' ? step.state : null;
  }
  return { steps, state };
}

/** What the prompt line shows once the keys are in. */
function shown(keys: SearchKey[], history: readonly string[] = HISTORY): string {
  const { state } = press(keys, 'half typed', history);
  if (state === null) throw new Error('the search ended');
  const view = searchView(state, history);
  return view.prompt + view.line;
}

describe('historySearch', () => {
  it('leaves every key but Ctrl-R to readline while not searching', () => {
    expect(press([key('a', { sequence: 'a' }), key('up'), key('return'), key('c', { ctrl: true })]).steps.every((s) => s.kind === 'pass')).toBe(true);
  });

  it('starts on Ctrl-R with an empty query and no match', () => {
    expect(shown([CTRL_R])).toBe("(reverse-i-search)'': ");
  });

  it('narrows to the newest entry holding the typed text, ignoring case', () => {
    expect(shown([CTRL_R, ...typed('p')])).toBe("(reverse-i-search)'p': What is 40 plus 2?");
    expect(shown([CTRL_R, ...typed('pla')])).toBe("(reverse-i-search)'pla': Summarise the Plan");
    expect(shown([CTRL_R, ...typed('PLAN')])).toBe("(reverse-i-search)'PLAN': Summarise the Plan");
    expect(shown([CTRL_R, ...typed('plane')])).toBe("(reverse-i-search)'plane': planets by size");
  });

  it('goes to the next older match on each Ctrl-R, and says so when there is none, keeping the last match', () => {
    expect(shown([CTRL_R, ...typed('what'), CTRL_R])).toBe("(reverse-i-search)'what': what time is it in Paris?");
    expect(shown([CTRL_R, ...typed('what'), CTRL_R, CTRL_R])).toBe("(failed reverse-i-search)'what': what time is it in Paris?");
  });

  it('shows a query that matches nothing as a failed search', () => {
    expect(shown([CTRL_R, ...typed('qqq')])).toBe("(failed reverse-i-search)'qqq': ");
    expect(shown([CTRL_R, ...typed('plaz')])).toBe("(failed reverse-i-search)'plaz': Summarise the Plan");
  });

  it('shortens the query on Backspace, staying on the match shown', () => {
    const backspace = key('backspace', { sequence: '\x7f' });
    expect(shown([CTRL_R, ...typed('plaz'), backspace])).toBe("(reverse-i-search)'pla': Summarise the Plan");
    expect(shown([CTRL_R, ...typed('what'), CTRL_R, backspace])).toBe("(reverse-i-search)'wha': what time is it in Paris?");
    expect(shown([CTRL_R, ...typed('p'), backspace])).toBe("(reverse-i-search)'': ");
  });

  it('submits the match on Enter', () => {
    expect(press([CTRL_R, ...typed('40'), key('return')]).steps.at(-1)).toEqual({ kind: 'leave', line: 'What is 40 plus 2?', cursor: 18, then: 'submit' });
  });

  it('takes the match into the line for editing on Esc, and on a cursor key which then moves the cursor', () => {
    expect(press([CTRL_R, ...typed('notes'), key('escape')]).steps.at(-1)).toEqual({ kind: 'leave', line: 'list my notes', cursor: 13, then: 'edit' });
    expect(press([CTRL_R, ...typed('notes'), key('left')]).steps.at(-1)).toEqual({ kind: 'leave', line: 'list my notes', cursor: 13, then: 'replay' });
    expect(press([CTRL_R, ...typed('notes'), key('right')]).steps.at(-1)).toMatchObject({ line: 'list my notes', then: 'replay' });
  });

  it('gives back the line as it was on Ctrl-C or Ctrl-G', () => {
    for (const cancel of [key('c', { ctrl: true }), key('g', { ctrl: true })]) {
      expect(press([CTRL_R, ...typed('plan'), CTRL_R, cancel]).steps.at(-1)).toEqual({ kind: 'leave', line: 'half typed', cursor: 4, then: 'edit' });
    }
  });

  it('keeps the line as it was when Enter comes with no match', () => {
    expect(press([CTRL_R, ...typed('qqq'), key('return')]).steps.at(-1)).toEqual({ kind: 'leave', line: 'half typed', cursor: 10, then: 'submit' });
  });

  it('searches an empty history without failing on Ctrl-R', () => {
    expect(shown([CTRL_R, CTRL_R], [])).toBe("(reverse-i-search)'': ");
    expect(shown([CTRL_R, ...typed('x')], [])).toBe("(failed reverse-i-search)'x': ");
  });
});

describe('searchView', () => {
  it('puts the cursor on the match within the entry, as bash does', () => {
    const { state } = press([CTRL_R, ...typed('paris')]);
    expect(searchView(state!, HISTORY).cursor).toBe('what time is it in '.length);
  });
});

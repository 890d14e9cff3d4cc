// The REPL's history file: one entry per message, entries of several lines kept whole, older plain files still read.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { addHistoryEntry, HISTORY_LINES, loadHistory, saveHistory } from '../../src/cli/repl-history.js';

const tempFile = () => join(mkdtempSync(join(tmpdir(), 'cortex-history-')), 'repl-history');

describe('repl history', () => {
  it('saves a message of several lines as one entry and reads it back whole, newest first', async () => {
    const file = tempFile();
    const history: string[] = [];
    addHistoryEntry(history, 'first question');
    addHistoryEntry(history, 'a pasted\nquestion');
    addHistoryEntry(history, '"quoted" at the start');
    await saveHistory(file, history);
    expect(readFileSync(file, 'utf8').trim().split('\n')).toHaveLength(3);
    expect(await loadHistory(file)).toEqual(['"quoted" at the start', 'a pasted\nquestion', 'first question']);
  });

  it('reads a history file written before entries could span lines', async () => {
    const file = tempFile();
    writeFileSync(file, 'older question\nnewer question\n');
    expect(await loadHistory(file)).toEqual(['newer question', 'older question']);
  });

  it('moves a repeated message to the front and keeps at most HISTORY_LINES entries', () => {
    const history: string[] = [];
    for (let i = 0; i < HISTORY_LINES + 5; i++) addHistoryEntry(history, `q${i}`);
    addHistoryEntry(history, 'q10');
    expect(history).toHaveLength(HISTORY_LINES);
    expect(history[0]).toBe('q10');
    expect(history.filter((h) => h === 'q10')).toHaveLength(1);
    addHistoryEntry(history, '   ');
    expect(history[0]).toBe('q10');
  });
});

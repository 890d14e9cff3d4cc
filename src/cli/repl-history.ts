// The REPL's input history: one entry per message (a paste or a `\`-continued question is one), kept between runs.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

/** Entries kept between runs (the file under the cache folder). */
export const HISTORY_LINES = 1_000;

/**
 * Reads the history file, newest first as readline wants it. An entry of several lines is stored as a JSON string
 * on one line (it starts with a quote); any other line is an entry as it stands (older files too).
 */
export async function loadHistory(file: string): Promise<string[]> {
  const text = await readFile(file, 'utf8').catch(() => '');
  return text.split('\n').filter(Boolean).slice(-HISTORY_LINES).map(decodeEntry).reverse();
}

/** Writes the history (newest first in memory) oldest first, one entry a line. */
export async function saveHistory(file: string, history: readonly string[]): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, `${history.slice(0, HISTORY_LINES).map(encodeEntry).reverse().join('\n')}\n`, { mode: 0o600 });
}

/** Puts a whole message at the front of the history (newest first), moving an equal older entry, within HISTORY_LINES. */
export function addHistoryEntry(history: string[], message: string): void {
  if (!message.trim()) return;
  const older = history.indexOf(message);
  if (older !== -1) history.splice(older, 1);
  history.unshift(message);
  history.length = Math.min(history.length, HISTORY_LINES);
}

function encodeEntry(entry: string): string {
  return entry.includes('\n') || entry.startsWith('"') ? JSON.stringify(entry) : entry;
}

function decodeEntry(line: string): string {
  if (!line.startsWith('"')) return line;
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === 'string' ? value : line;
  } catch {
    return line;
  }
}

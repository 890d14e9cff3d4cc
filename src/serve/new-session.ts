// A new session named before its question runs: an empty session file, so the page's address can name it at once.
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { SessionMemory } from '../memory/session-memory.js';

/** Tries at a fresh id when one was taken in the same second (3 random bytes: a collision is already rare). */
const MAX_ID_TRIES = 5;

/** A session reserved for one question. */
export interface ReservedSession {
  id: string;
  /** Removes the file when the question left nothing in it (refused or stopped before it began). */
  discardIfEmpty(): Promise<void>;
}

/** Creates an empty session file under `baseDir` (the profile's memory folder) and returns its id. */
export async function reserveSession(baseDir: string): Promise<ReservedSession> {
  for (let attempt = 1; ; attempt++) {
    const { id, path } = SessionMemory.create({ baseDir });
    await mkdir(dirname(path), { recursive: true });
    try {
      await writeFile(path, '[]', { flag: 'wx' });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST' && attempt < MAX_ID_TRIES) continue;
      throw err;
    }
    return {
      id,
      discardIfEmpty: async () => {
        const text = await readFile(path, 'utf8').catch(() => null);
        if (text !== null && text.trim() === '[]') await rm(path, { force: true });
      },
    };
  }
}

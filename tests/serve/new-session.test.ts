// reserveSession: a new session's id is known (and its file exists) before its question runs; an unused one leaves nothing.
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SessionMemory } from '../../src/memory/session-memory.js';
import { listSessions } from '../../src/memory/session-files.js';
import { reserveSession } from '../../src/serve/new-session.js';

describe('reserveSession', () => {
  it('creates a session that opens by its id before anything is written, and that a question then fills', async () => {
    const baseDir = mkdtempSync(join(tmpdir(), 'cortex-reserve-'));
    const reserved = await reserveSession(baseDir);
    const opened = await SessionMemory.open({ baseDir, sessionId: reserved.id });
    expect(opened.items).toEqual([]);
    await opened.add({ type: 'run_metadata', text: 'what is 2 + 2?', metadata: { event: 'start' } });
    await reserved.discardIfEmpty();
    expect((await listSessions(baseDir)).map((s) => s.id)).toEqual([reserved.id]);
  });

  it('leaves no session behind when its question never wrote to it', async () => {
    const baseDir = mkdtempSync(join(tmpdir(), 'cortex-reserve-'));
    const reserved = await reserveSession(baseDir);
    expect((await listSessions(baseDir)).map((s) => s.id)).toEqual([reserved.id]);
    await reserved.discardIfEmpty();
    expect(await listSessions(baseDir)).toEqual([]);
    expect(readdirSync(baseDir, { recursive: true }).filter((f) => String(f).endsWith('.json'))).toEqual([]);
  });
});

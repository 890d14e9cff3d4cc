import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { MemoryError } from '../../src/memory/memory-item.js';
import { listSessions } from '../../src/memory/session-files.js';
import { MAX_ITEM_TEXT_CHARS, MAX_SYNC_SAVE_CHARS, SessionMemory } from '../../src/memory/session-memory.js';

let baseDir: string;

beforeEach(async () => {
  baseDir = await mkdtemp(join(tmpdir(), 'cortex-memory-'));
});

afterEach(async () => {
  await rm(baseDir, { recursive: true, force: true });
});

describe('SessionMemory', () => {
  it('names the file memory/YYYY/MM/DD/session-<unix>-<uid>.json from its start time', () => {
    const now = new Date(2024, 5, 9, 12, 0, 0);
    const memory = SessionMemory.create({ baseDir, now });
    expect(memory.id).toMatch(new RegExp(`^${Math.floor(now.getTime() / 1000)}-[0-9a-f]{6}$`));
    expect(relative(baseDir, memory.path)).toBe(join('2024', '06', '09', `session-${memory.id}.json`));
    expect(memory.tracePath).toBe(join(dirname(memory.path), `session-${memory.id}.trace.jsonl`));
  });

  it('writes the whole list after each item, leaving no temp file behind', async () => {
    const memory = SessionMemory.create({ baseDir });
    await memory.add({ type: 'run_metadata', text: 'What is 2+2?', metadata: { run_id: 'r1' } });
    const first = JSON.parse(await readFile(memory.path, 'utf8'));
    expect(first).toHaveLength(1);
    expect(first[0]).toMatchObject({ type: 'run_metadata', text: 'What is 2+2?', tags: [], metadata: { run_id: 'r1' } });
    expect(Date.parse(first[0].timestamp)).not.toBeNaN();

    await memory.add({ type: 'tool_call', text: 'add({"a":2,"b":2})', tool_name: 'add', tool_args: { a: 2, b: 2 }, success: true });
    const second = JSON.parse(await readFile(memory.path, 'utf8'));
    expect(second.map((item: { type: string }) => item.type)).toEqual(['run_metadata', 'tool_call']);
    expect(await readdir(dirname(memory.path))).toEqual([basename(memory.path)]);
  });

  it('keeps items in order when adds are not awaited one by one', async () => {
    const memory = SessionMemory.create({ baseDir });
    await Promise.all(Array.from({ length: 20 }, (_, i) => memory.add({ type: 'tool_output', text: `item ${i}` })));
    const onDisk = JSON.parse(await readFile(memory.path, 'utf8'));
    expect(onDisk.map((item: { text: string }) => item.text)).toEqual(Array.from({ length: 20 }, (_, i) => `item ${i}`));
  });

  it('replaces the file by rename (a new inode each write), so a reader never sees half a list', async () => {
    const memory = SessionMemory.create({ baseDir });
    await memory.add({ type: 'run_metadata', text: 'first' });
    const before = await stat(memory.path);
    await memory.add({ type: 'run_metadata', text: 'second' });
    const after = await stat(memory.path);
    // Writing in place would keep the inode; a temp file renamed over the old one brings its own.
    expect(after.ino).not.toBe(before.ino);
  });

  it('saves a long session (past the size written synchronously) whole, by rename, leaving no temp file', async () => {
    const memory = SessionMemory.create({ baseDir });
    const items = Math.ceil(MAX_SYNC_SAVE_CHARS / MAX_ITEM_TEXT_CHARS) + 1;
    for (let i = 0; i < items; i++) await memory.add({ type: 'tool_output', text: `${i} `.padEnd(MAX_ITEM_TEXT_CHARS, 'x') });
    const before = await stat(memory.path);
    expect(before.size).toBeGreaterThan(MAX_SYNC_SAVE_CHARS);
    await memory.add({ type: 'final_answer', text: 'done' });
    const onDisk = JSON.parse(await readFile(memory.path, 'utf8'));
    expect(onDisk).toHaveLength(items + 1);
    expect(onDisk.at(-1)).toMatchObject({ type: 'final_answer', text: 'done' });
    expect((await stat(memory.path)).ino).not.toBe(before.ino);
    expect(await readdir(dirname(memory.path))).toEqual([basename(memory.path)]);
  });

  it('reports a failed write as a memory error and leaves no temp file behind', async () => {
    const memory = SessionMemory.create({ baseDir });
    // A directory where the session file should be makes the final rename fail.
    await mkdir(join(memory.path, 'blocker'), { recursive: true });
    await expect(memory.add({ type: 'run_metadata', text: 'lost' })).rejects.toBeInstanceOf(MemoryError);
    expect(await readdir(dirname(memory.path))).toEqual([basename(memory.path)]);
  });

  it('bounds long text and large tool results', async () => {
    const memory = SessionMemory.create({ baseDir });
    const item = await memory.add({ type: 'tool_output', text: 'x'.repeat(MAX_ITEM_TEXT_CHARS * 2), tool_result: { big: 'y'.repeat(50_000) } });
    expect(item.text.length).toBeLessThan(MAX_ITEM_TEXT_CHARS + 100);
    expect(item.text).toContain('[truncated from 20000 characters]');
    expect(item.tool_result).toMatchObject({ truncated: true });
  });

  it('reopens a session by id, with or without the session- prefix, and keeps appending', async () => {
    const memory = SessionMemory.create({ baseDir });
    await memory.add({ type: 'run_metadata', text: 'question one', metadata: { run_id: 'a' } });
    for (const id of [memory.id, `session-${memory.id}`, `session-${memory.id}.json`]) {
      const reopened = await SessionMemory.open({ baseDir, sessionId: id });
      expect(reopened.path).toBe(memory.path);
      expect(reopened.items.map((i) => i.text)).toEqual(['question one']);
    }
    const reopened = await SessionMemory.open({ baseDir, sessionId: memory.id });
    await reopened.add({ type: 'final_answer', text: '4', final_answer: '4', metadata: { run_id: 'a' } });
    expect(JSON.parse(await readFile(memory.path, 'utf8'))).toHaveLength(2);
  });

  it('finds a session filed under another date folder (the time zone may have changed)', async () => {
    const memory = SessionMemory.create({ baseDir, now: new Date(2024, 0, 1, 12) });
    await memory.add({ type: 'run_metadata', text: 'moved' });
    const elsewhere = join(baseDir, '2023', '12', '31', basename(memory.path));
    await mkdir(dirname(elsewhere), { recursive: true });
    await writeFile(elsewhere, await readFile(memory.path));
    await rm(memory.path);
    const reopened = await SessionMemory.open({ baseDir, sessionId: memory.id });
    expect(reopened.path).toBe(elsewhere);
  });

  it('refuses a malformed or unknown id with a usage error, and a corrupt file with a memory error', async () => {
    await expect(SessionMemory.open({ baseDir, sessionId: '../../etc/passwd' })).rejects.toBeInstanceOf(UsageError);
    await expect(SessionMemory.open({ baseDir, sessionId: '1700000000-abcdef' })).rejects.toThrow(/no session 1700000000-abcdef/);
    const memory = SessionMemory.create({ baseDir });
    await mkdir(dirname(memory.path), { recursive: true });
    await writeFile(memory.path, '[{"type": "nonsense"}]');
    await expect(SessionMemory.open({ baseDir, sessionId: memory.id })).rejects.toBeInstanceOf(MemoryError);
  });

  it('findRecentSuccesses lists successful tools, most recent first, each once', async () => {
    const memory = SessionMemory.create({ baseDir });
    const call = (name: string, success: boolean) => memory.add({ type: 'tool_call', text: name, tool_name: name, success });
    await call('add', true);
    await call('multiply', true);
    await call('divide', false);
    await call('add', true);
    await memory.add({ type: 'tool_output', text: 'ok', tool_name: 'solve', success: true });
    expect(memory.findRecentSuccesses()).toEqual(['add', 'multiply']);
    expect(memory.findRecentSuccesses(1)).toEqual(['add']);
  });

  it('summarises earlier questions and answers, leaving out the run in progress', async () => {
    const memory = SessionMemory.create({ baseDir });
    expect(memory.summary()).toMatch(/first question/);
    await memory.add({ type: 'run_metadata', text: 'What is 2+2?', metadata: { run_id: 'r1', event: 'start' } });
    await memory.add({ type: 'tool_call', text: 'add', tool_name: 'add', success: true, metadata: { run_id: 'r1' } });
    await memory.add({ type: 'final_answer', text: '4', final_answer: '4', metadata: { run_id: 'r1' } });
    await memory.add({ type: 'run_metadata', text: 'Now double it', metadata: { run_id: 'r2', event: 'start' } });
    const summary = memory.summary({ excludeRunId: 'r2' });
    expect(summary).toContain('Q: What is 2+2?\nA: 4');
    expect(summary).toContain('Tools that worked recently: add');
    expect(summary).not.toContain('Now double it');
  });

  it('keeps the newest questions in full within its bound, and says how many older ones are not shown until summarised', async () => {
    const memory = SessionMemory.create({ baseDir });
    for (let i = 0; i < 5; i++) {
      await memory.add({ type: 'run_metadata', text: `question ${i} ${'z'.repeat(150)}`, metadata: { run_id: `r${i}` } });
    }
    const summary = memory.summary({ maxChars: 500 });
    expect(summary.length).toBeLessThanOrEqual(700);
    expect(summary).toContain(`question 4 ${'z'.repeat(150)}`);
    expect(summary).not.toContain('question 0');
    expect(summary).toContain('(3 older questions of this session could not be summarised and are not shown.)');
  });
});

describe('listSessions', () => {
  it('lists sessions newest first with start time, first question and item count', async () => {
    const older = SessionMemory.create({ baseDir, now: new Date(2024, 0, 1, 10) });
    await older.add({ type: 'run_metadata', text: 'old question' });
    const newer = SessionMemory.create({ baseDir, now: new Date(2024, 0, 2, 10) });
    await newer.add({ type: 'run_metadata', text: 'new question' });
    await newer.add({ type: 'final_answer', text: 'answer', final_answer: 'answer' });
    await newer.add({ type: 'run_metadata', text: 'second question' });
    const trace = join(dirname(newer.path), `session-${newer.id}.trace.jsonl`);
    await writeFile(trace, '{}\n');

    const sessions = await listSessions(baseDir);
    expect(sessions.map((s) => s.id)).toEqual([newer.id, older.id]);
    expect(sessions[0]).toMatchObject({ first_query: 'new question', item_count: 3, path: newer.path });
    expect(sessions[0]!.started).toBe(new Date(2024, 0, 2, 10).toISOString());
    expect(await listSessions(baseDir, { limit: 1 })).toHaveLength(1);
  });

  it('still lists a session whose file is corrupt, saying what is wrong', async () => {
    const memory = SessionMemory.create({ baseDir });
    await mkdir(dirname(memory.path), { recursive: true });
    await writeFile(memory.path, 'not json');
    const [info] = await listSessions(baseDir);
    expect(info).toMatchObject({ id: memory.id, item_count: 0 });
    expect(info!.error).toMatch(/cannot be read as JSON/);
  });

  it('returns nothing for a memory folder that does not exist yet', async () => {
    expect(await listSessions(join(baseDir, 'missing'))).toEqual([]);
  });
});

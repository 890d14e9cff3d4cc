// memory/ is read and written only through real folders and regular files: links planted in it are never followed.
import { mkdirSync, mkdtempSync, readFileSync, lstatSync, rmSync, symlinkSync, writeFileSync, existsSync, readdirSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { dateFolder, MemoryError, sessionFileName } from '../../src/memory/memory-item.js';
import { readSessionFile } from '../../src/memory/session-files.js';
import { SessionMemory } from '../../src/memory/session-memory.js';
import { Trace } from '../../src/memory/trace.js';

const NOW = new Date(2026, 10, 26, 12, 0, 0);
let root: string;
let baseDir: string;
let outside: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'cortex-memory-links-'));
  baseDir = join(root, 'memory');
  outside = join(root, 'outside');
  mkdirSync(outside);
  writeFileSync(join(outside, 'secret.txt'), 'do not touch');
});

describe('memory/ and symbolic links', () => {
  it('never writes a session file or its trace into a folder reached through a planted link', async () => {
    const [year, month] = dateFolder(NOW);
    mkdirSync(join(baseDir, year, month), { recursive: true });
    symlinkSync(outside, join(baseDir, year, month, dateFolder(NOW)[2]));
    const memory = SessionMemory.create({ baseDir, now: NOW });
    await expect(memory.add({ type: 'run_metadata', text: 'q' })).rejects.toThrow(MemoryError);
    await expect(new Trace(memory.tracePath).record({ type: 'cancelled', run_id: 'r', reason: 'test' })).rejects.toThrow(/symbolic link/);
    expect(readdirSync(outside)).toEqual(['secret.txt']);
  });

  it('replaces a link planted at the session file rather than writing through it', async () => {
    const memory = SessionMemory.create({ baseDir, now: NOW });
    mkdirSync(join(baseDir, ...dateFolder(NOW)), { recursive: true });
    symlinkSync(join(outside, 'secret.txt'), memory.path);
    await memory.add({ type: 'run_metadata', text: 'q' });
    expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe('do not touch');
    expect(lstatSync(memory.path).isFile()).toBe(true);
  });

  it('never appends the trace to a file a planted link points at', async () => {
    const memory = SessionMemory.create({ baseDir, now: NOW });
    mkdirSync(join(baseDir, ...dateFolder(NOW)), { recursive: true });
    symlinkSync(join(outside, 'secret.txt'), memory.tracePath);
    await expect(new Trace(memory.tracePath).record({ type: 'cancelled', run_id: 'r', reason: 'test' })).rejects.toThrow(/symbolic link/);
    expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe('do not touch');
  });

  it('does not read a session through a link, at the file or at a date folder', async () => {
    const id = `${Math.floor(NOW.getTime() / 1000)}-abcdef`;
    const sessionJson = JSON.stringify([{ timestamp: NOW.toISOString(), type: 'run_metadata', text: 'elsewhere', tags: [], metadata: {} }]);
    writeFileSync(join(outside, sessionFileName(id)), sessionJson);
    const folder = join(baseDir, ...dateFolder(NOW));
    mkdirSync(folder, { recursive: true });
    symlinkSync(join(outside, sessionFileName(id)), join(folder, sessionFileName(id)));
    await expect(readSessionFile(join(folder, sessionFileName(id)))).rejects.toThrow(/symbolic link/);
    await expect(SessionMemory.open({ baseDir, sessionId: id })).rejects.toThrow(/no session/);

    // A whole date folder linked elsewhere is not searched either.
    const other = join(root, 'memory2');
    const [year, month, day] = dateFolder(NOW);
    mkdirSync(join(other, year, month), { recursive: true });
    symlinkSync(outside, join(other, year, month, day));
    await expect(SessionMemory.open({ baseDir: other, sessionId: id })).rejects.toThrow(/no session/);
    expect(existsSync(join(outside, sessionFileName(id)))).toBe(true);
  });

  it('creates the memory folder and its date folders on the first write when none exist', async () => {
    const memory = SessionMemory.create({ baseDir: join(root, 'not', 'yet', 'memory'), now: NOW });
    await memory.add({ type: 'run_metadata', text: 'q' });
    await new Trace(memory.tracePath).record({ type: 'cancelled', run_id: 'r', reason: 'test' });
    expect(lstatSync(memory.path).isFile()).toBe(true);
    expect(lstatSync(memory.tracePath).isFile()).toBe(true);
  });

  it('checks the date folders again on every write: a link planted after a session started stops its next line', async () => {
    const memory = SessionMemory.create({ baseDir, now: NOW });
    const trace = new Trace(memory.tracePath);
    await memory.add({ type: 'run_metadata', text: 'q' });
    await trace.record({ type: 'cancelled', run_id: 'r', reason: 'first' });
    const [year, month, day] = dateFolder(NOW);
    rmSync(join(baseDir, year, month, day), { recursive: true });
    symlinkSync(outside, join(baseDir, year, month, day));
    await expect(trace.record({ type: 'cancelled', run_id: 'r', reason: 'second' })).rejects.toThrow(/symbolic link/);
    await expect(memory.add({ type: 'run_metadata', text: 'again' })).rejects.toThrow(MemoryError);
    expect(readdirSync(outside)).toEqual(['secret.txt']);
  });

  it('refuses a FIFO planted where the trace goes, at once, instead of waiting for a reader', async () => {
    const memory = SessionMemory.create({ baseDir, now: NOW });
    mkdirSync(join(baseDir, ...dateFolder(NOW)), { recursive: true });
    execFileSync('mkfifo', [memory.tracePath]);
    await expect(new Trace(memory.tracePath).record({ type: 'cancelled', run_id: 'r', reason: 'test' })).rejects.toThrow(MemoryError);
  });
});

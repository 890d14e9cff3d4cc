// Small text files queued together go to the parse worker several to a message, with the results they get alone.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtPath } from '../../../src/paths.js';
import { createExtractor } from '../../../src/rag/extract/index.js';
import { FIRST_BATCH_MAX_FILES } from '../../../src/rag/extract/limits.js';
import type { ExtractionLimits, ExtractionResult } from '../../../src/rag/types.js';

/** Worker time limit of the good files: far above a cold start on a loaded machine, so only the faulty file fails. */
const GOOD_TIMEOUT_MS = 20_000;
const CHUNKED: Partial<ExtractionLimits> = { timeoutMs: GOOD_TIMEOUT_MS, structuralChunks: { maxChars: 200, overlapChars: 40 } };

let dir: string;
let workerPath: string;
let logPath: string;

/**
 * The real worker, which also logs the file names of each message it gets, and hangs, exits or runs out of heap on
 * hang.md, crash.md or bloat.md. The real worker's listener comes first but replies only after an await, so the
 * fault here happens before that reply can be sent.
 */
function faultyWorker(realWorker: string, log: string): string {
  return `import { appendFileSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';
import ${JSON.stringify(pathToFileURL(realWorker).href)};
parentPort.on('message', (batch) => {
  const names = batch.requests.map((r) => r.name);
  appendFileSync(${JSON.stringify(log)}, JSON.stringify(names) + '\\n');
  if (names.includes('hang.md')) for (;;);
  if (names.includes('crash.md')) process.exit(7);
  if (names.includes('bloat.md')) { const keep = []; for (;;) keep.push(new Array(100_000).fill(1)); }
});
`;
}

/** The file names of each message the worker got since the log was last cleared, in order. */
async function messagesLogged(): Promise<string[][]> {
  const text = await readFile(logPath, 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as string[]);
}

/** Extracts `names` one at a time on a fresh extractor (each alone in a message). */
async function extractOneByOne(names: string[], limits: (name: string) => Partial<ExtractionLimits>, heapMb?: number): Promise<ExtractionResult[]> {
  const extractor = createExtractor({ documentsDir: dir, workerPath, ...(heapMb ? { workerHeapMb: heapMb } : {}) });
  try {
    const results: ExtractionResult[] = [];
    for (const name of names) results.push(await extractor.extract(name, limits(name)));
    return results;
  } finally {
    await extractor.close();
  }
}

/** Extracts `names` all at once on a fresh extractor: the results, the names in each worker message, the message count. */
async function extractTogether(names: string[], limits: (name: string) => Partial<ExtractionLimits>, heapMb?: number) {
  await rm(logPath, { force: true });
  const extractor = createExtractor({ documentsDir: dir, workerPath, ...(heapMb ? { workerHeapMb: heapMb } : {}) });
  try {
    const together = await Promise.all(names.map((name) => extractor.extract(name, limits(name))));
    return { together, messages: await messagesLogged(), workerMessages: extractor.workerMessages };
  } finally {
    await extractor.close();
  }
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'extract-batch-'));
  logPath = join(dir, 'messages.log');
  workerPath = join(dir, 'faulty-worker.mjs');
  await writeFile(workerPath, faultyWorker(builtPath('src/rag/extract/extract-worker.js'), logPath));
  for (let i = 0; i < 40; i++) {
    const sections = Array.from({ length: 1 + (i % 4) }, (_, s) => `## Part ${s}\n\nValve ${i}.${s} opens at ${i + s} bar. `.repeat(1 + (i % 7)));
    await writeFile(join(dir, `note-${i}.md`), `# Note ${i}\n\n${sections.join('\n\n')}\n`);
  }
  await writeFile(join(dir, 'plain.txt'), 'A plain text file.');
  await writeFile(join(dir, 'table.csv'), 'valve,bar\nA,3\nB,5\n');
  await writeFile(join(dir, 'data.json'), '{"valves":[{"name":"A","bar":3}]}');
  await writeFile(join(dir, 'page.html'), '<html><head><title>Valves</title></head><body><p>Valve A opens at 3 bar.</p></body></html>');
  await writeFile(join(dir, 'empty.md'), '');
  // 100 KiB each: three of them pass the 256 KiB a batch reads.
  for (let i = 0; i < 6; i++) await writeFile(join(dir, `big-${i}.md`), `# Big ${i}\n\n${'Valve B opens at nine bar. '.repeat(4096)}`.slice(0, 100 * 1024));
  for (const name of ['hang.md', 'crash.md', 'bloat.md']) await writeFile(join(dir, name), `# ${name}\n\nThis one breaks the worker.\n`);
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('createExtractor: batches of small text files', () => {
  it('gives many files extracted at once the results they get one at a time, in fewer worker messages', async () => {
    const notes = Array.from({ length: 40 }, (_, i) => `note-${i}.md`);
    const names = [...notes.slice(0, 20), 'plain.txt', 'page.html', 'table.csv', 'missing.md', 'empty.md', 'data.json', ...notes.slice(20)];
    const oneByOne = await extractOneByOne(names, () => CHUNKED);
    const { together, messages, workerMessages } = await extractTogether(names, () => CHUNKED);
    expect(together).toEqual(oneByOne);
    expect(together.filter((r) => r.ok && r.chunks && r.chunks.length > 1).length).toBeGreaterThan(5);
    expect(workerMessages).toBe(messages.length);
    // Every file went to the worker exactly once (it reads them: missing.md too), in far fewer messages.
    expect(messages.flat().sort()).toEqual([...names].sort());
    expect(messages.length).toBeLessThan(names.length / 4);
    // The HTML page went alone: only plain text files share a message.
    expect(messages.filter((m) => m.includes('page.html'))).toEqual([['page.html']]);
  });

  it('leaves the files past 256 KiB read in a batch for the next message, with the results they get alone', async () => {
    const names = Array.from({ length: 6 }, (_, i) => `big-${i}.md`);
    const oneByOne = await extractOneByOne(names, () => CHUNKED);
    const { together, messages } = await extractTogether(names, () => CHUNKED);
    expect(together).toEqual(oneByOne);
    expect(together.every((r) => r.ok)).toBe(true);
    // All six were sent; the worker read three (300 KiB) and left the rest, which went again in the next message.
    expect(messages).toEqual([names, names.slice(3)]);
  });

  it('sends the next batch while one is parsed; when that one hangs, the next is sent again whole, none of it blamed', async () => {
    // hang.md in the first message; the nine files past that message make the second.
    const names = [...Array.from({ length: 5 }, (_, i) => `note-${i}.md`), 'hang.md', ...Array.from({ length: FIRST_BATCH_MAX_FILES + 3 }, (_, i) => `note-${i + 5}.md`)];
    const limits = (name: string): Partial<ExtractionLimits> => (name === 'hang.md' ? { ...CHUNKED, timeoutMs: 1_000 } : CHUNKED);
    const oneByOne = await extractOneByOne(names, limits);
    const { together, messages } = await extractTogether(names, limits);
    expect(together).toEqual(oneByOne);
    expect(together[5]).toMatchObject({ ok: false, reason: 'timeout' });
    // The second batch went as one message and no file of it went alone.
    const second = names.slice(FIRST_BATCH_MAX_FILES);
    expect(second).toHaveLength(9);
    expect(messages.filter((m) => m.some((name) => second.includes(name)))).toEqual([second]);
  });

  it.each([
    ['hang.md', 'timeout', undefined],
    ['crash.md', 'parse_error', undefined],
    ['bloat.md', 'too_large', 32],
  ] as const)('blames %s alone when it breaks a batch (%s); the rest of its batch succeeds', async (culprit, reason, heapMb) => {
    // All in the first message, which takes FIRST_BATCH_MAX_FILES.
    const names = [...Array.from({ length: 3 }, (_, i) => `note-${i}.md`), culprit, ...Array.from({ length: 3 }, (_, i) => `note-${i + 3}.md`)];
    // The culprit's own limit is short, so a hang costs little; it also cuts the batch, which takes the smallest.
    const limits = (name: string): Partial<ExtractionLimits> => (name === culprit ? { ...CHUNKED, timeoutMs: 1_000 } : CHUNKED);
    const oneByOne = await extractOneByOne(names, limits, heapMb);
    expect(oneByOne[3]).toMatchObject({ ok: false, reason });
    const { together, messages } = await extractTogether(names, limits, heapMb);
    expect(together).toEqual(oneByOne);
    // The culprit did go in a batch with others; then it and each of the others were parsed again alone.
    const batchIndex = messages.findIndex((m) => m.includes(culprit) && m.length > 1);
    expect(batchIndex).toBeGreaterThanOrEqual(0);
    const batch = messages[batchIndex]!;
    expect(messages.slice(batchIndex + 1, batchIndex + 1 + batch.length)).toEqual(batch.map((name) => [name]));
  });
});

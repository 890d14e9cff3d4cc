import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listSessions } from '../../src/memory/session-files.js';
import { SessionMemory } from '../../src/memory/session-memory.js';
import { searchPastSessions } from '../../src/memory/search-sessions.js';
import { readSessionView, removeSession } from '../../src/memory/session-view.js';

let baseDir: string;
beforeEach(async () => {
  baseDir = await mkdtemp(join(tmpdir(), 'cortex-search-sessions-'));
});
afterEach(async () => {
  await rm(baseDir, { recursive: true, force: true });
});

/** A saved session holding one question per [question, answer | null] pair (null: it gave up). */
async function session(secondsAgo: number, questions: Array<[string, string | null]>): Promise<string> {
  const memory = SessionMemory.create({ baseDir, now: new Date(Date.now() - secondsAgo * 1000) });
  for (const [i, [question, answer]] of questions.entries()) {
    const run_id = `run-${i}`;
    await memory.add({ type: 'run_metadata', text: question, tags: ['query'], metadata: { run_id, event: 'start' } });
    if (answer === null) await memory.add({ type: 'run_metadata', text: 'ran out of steps', tags: ['gave_up'], metadata: { run_id, event: 'end', status: 'gave_up' } });
    else await memory.add({ type: 'final_answer', text: answer, final_answer: answer, tags: ['final_answer'], metadata: { run_id } });
  }
  await memory.flush();
  return memory.id;
}

describe('searchPastSessions', () => {
  it('ranks earlier answered questions by BM25 over question and answer, best first', async () => {
    const geography = await session(300, [['What is the capital of Australia?', 'Canberra']]);
    await session(200, [['Sum the ASCII codes of INDIA', '357'], ['What is the capital of France?', 'Paris']]);
    const { hits, searched } = await searchPastSessions(baseDir, 'Australia capital');
    expect(searched).toBe(3);
    expect(hits[0]).toMatchObject({ session_id: geography, question: 'What is the capital of Australia?', answer: 'Canberra' });
    expect(hits.map((h) => h.answer)).toEqual(['Canberra', 'Paris']);
  });

  it('leaves out questions that were never answered, and finds nothing for unrelated words', async () => {
    await session(100, [['What is the capital of Peru?', null]]);
    expect((await searchPastSessions(baseDir, 'capital Peru')).hits).toEqual([]);
    await session(50, [['Tell me a joke', 'No.']]);
    expect((await searchPastSessions(baseDir, 'photosynthesis')).hits).toEqual([]);
  });
});

describe('session view', () => {
  it('lists a question count and the last outcome, shows each question with its answer, and removes a session', async () => {
    const id = await session(10, [['first question', 'one'], ['second question', null]]);
    const [info] = await listSessions(baseDir);
    expect(info).toMatchObject({ id, question_count: 2, last_outcome: 'gave_up' });
    const view = await readSessionView(baseDir, id);
    expect(view.questions.map((q) => [q.question, q.outcome, q.answer, q.reason])).toEqual([
      ['first question', 'answered', 'one', null],
      ['second question', 'gave_up', null, 'ran out of steps'],
    ]);
    await removeSession(baseDir, id);
    expect(await listSessions(baseDir)).toEqual([]);
    await expect(readSessionView(baseDir, id)).rejects.toThrow(`no session ${id}`);
  });
});

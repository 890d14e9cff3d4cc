// Search over what earlier sessions asked and answered: one text per question, ranked by the documents' BM25.
import { buildBm25Index } from '../rag/search/bm25.js';
import { readSessionFile, sessionFiles } from './session-files.js';
import { sessionQuestions } from './session-questions.js';

/** Sessions read per search, newest first; older ones are not searched. */
export const MAX_SESSIONS_SEARCHED = 500;
/** Most hits one search returns. */
export const MAX_PAST_HITS = 10;
/** Characters of each answer given back in a hit. */
const MAX_HIT_ANSWER_CHARS = 1_000;
/** Characters of each question given back in a hit. */
const MAX_HIT_QUESTION_CHARS = 500;

/** One earlier question that matches. */
export interface PastHit {
  session_id: string;
  /** ISO time it was asked. */
  asked: string;
  question: string;
  answer: string;
}

const clip = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);

/**
 * The earlier answered questions (with their answers) best matching `query`, best first, at most `limit`. Ranked by
 * BM25 over each question and its answer, the same scoring the documents search uses. `exclude` leaves out a
 * session (the one asking). Unreadable session files are skipped.
 */
export async function searchPastSessions(
  memoryDir: string,
  query: string,
  { limit = 5, exclude }: { limit?: number; exclude?: string } = {},
): Promise<{ hits: PastHit[]; searched: number }> {
  const entries: PastHit[] = [];
  let seen = 0;
  // Each session file read once (listSessions would read it for its summary, then again here).
  for await (const session of sessionFiles(memoryDir)) {
    if (++seen > MAX_SESSIONS_SEARCHED) break;
    if (session.id === exclude) continue;
    const items = await readSessionFile(session.path).catch(() => null);
    if (!items) continue;
    // Only answered questions: the one being asked now (unfinished) would otherwise find itself.
    for (const q of sessionQuestions(items)) {
      if (q.answer === null) continue;
      entries.push({ session_id: session.id, asked: q.asked, question: q.question, answer: q.answer });
    }
  }
  const index = buildBm25Index(entries.map((e) => `${e.question}\n${e.answer}`));
  const hits = index
    .search(query, Math.max(1, Math.min(limit, MAX_PAST_HITS)))
    .map((hit) => entries[hit.index]!)
    .map((e) => ({ ...e, question: clip(e.question, MAX_HIT_QUESTION_CHARS), answer: clip(e.answer, MAX_HIT_ANSWER_CHARS) }));
  return { hits, searched: entries.length };
}

// A session file's items grouped by question (run): what was asked and what became of it.
import type { MemoryItem } from './memory-item.js';

/** 'failed': stopped by an error not the model's plan's (the LLM unreachable or refusing); 'unfinished': no end was saved. */
export type QuestionOutcome = 'answered' | 'gave_up' | 'cancelled' | 'failed' | 'unfinished';

/** One question of a session and what became of it. */
export interface SessionQuestion {
  run_id: string;
  /** ISO time it was asked. */
  asked: string;
  question: string;
  outcome: QuestionOutcome;
  answer: string | null;
  /** Why it gave up, failed or was cancelled. */
  reason: string | null;
  /** The code of each plan that ran for it (from the session's trace), in order. */
  plans: { step: number; lifeline: number; code: string }[];
}

/** Groups a session file's items into its questions, oldest first. */
export function sessionQuestions(items: MemoryItem[]): SessionQuestion[] {
  const byRun = new Map<string, SessionQuestion>();
  for (const item of items) {
    const runId = typeof item.metadata.run_id === 'string' ? item.metadata.run_id : null;
    if (!runId) continue;
    if (item.type === 'run_metadata' && item.metadata.event === 'start') {
      byRun.set(runId, { run_id: runId, asked: item.timestamp, question: item.text, outcome: 'unfinished', answer: null, reason: null, plans: [] });
      continue;
    }
    const question = byRun.get(runId);
    if (!question) continue;
    if (item.type === 'final_answer') {
      question.outcome = 'answered';
      question.answer = item.final_answer ?? item.text;
    } else if (item.type === 'run_metadata' && item.metadata.event === 'end') {
      const status = item.metadata.status;
      question.outcome = status === 'cancelled' ? 'cancelled' : status === 'failed' ? 'failed' : 'gave_up';
      question.reason = item.text;
    }
  }
  return [...byRun.values()];
}

// `cortex sessions`: list the saved sessions (newest first), show one (questions, answers, plans), delete one.
import type { LoadedConfig } from '../config/load-config.js';
import { listSessions, type SessionInfo } from '../memory/session-files.js';
import type { QuestionOutcome } from '../memory/session-questions.js';
import { readSessionView, removeSession } from '../memory/session-view.js';
import { EXIT } from './exit-codes.js';
import type { Output, Palette } from './output.js';

/** `YYYY-MM-DD HH:MM` in the machine's time zone, the one date format of sessions (list, show, REPL); --json keeps ISO UTC. */
export function localTime(iso: string): string {
  const d = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

const OUTCOME_WORDS: Record<QuestionOutcome, string> = {
  answered: 'answered',
  gave_up: 'gave up',
  cancelled: 'cancelled',
  failed: 'failed',
  unfinished: 'unfinished',
};

/**
 * A session as one line of a list (`cortex sessions`, the REPL's /sessions): id, local start time, questions, what
 * became of the last one, and its first question, or why the last one did not answer.
 */
export function sessionLine(s: SessionInfo, style: Palette): string {
  const count = `${s.question_count} question${s.question_count === 1 ? '' : 's'}`.padEnd(12);
  const outcome = (s.last_outcome ? OUTCOME_WORDS[s.last_outcome] : '').padEnd(10);
  const outcomeShown = s.last_outcome === 'answered' ? style.green(outcome) : s.last_outcome ? style.red(outcome) : outcome;
  // The reason belongs to the last question, which is not the one shown when there are several.
  const why = s.last_reason && s.last_outcome !== 'answered' ? style.dim(s.question_count > 1 ? ` · last question: ${s.last_reason}` : ` (${s.last_reason})`) : '';
  return `${s.id}  ${localTime(s.started)}  ${count}  ${outcomeShown}  ${s.error ? style.red(s.error) : `${s.first_query ?? ''}${why}`}`;
}

export async function sessionsCommand(config: LoadedConfig, limit: number, out: Output): Promise<number> {
  const sessions = await listSessions(config.paths.memory, { limit });
  if (out.json) {
    out.result(sessions);
  } else if (sessions.length === 0) {
    out.line(`No sessions yet in ${config.paths.memory}.`);
  } else {
    for (const s of sessions) out.line(sessionLine(s, out));
  }
  return EXIT.ok;
}

/** `cortex sessions show ID`: each question with its outcome, answer and the code of each plan. */
export async function sessionShowCommand(config: LoadedConfig, id: string, out: Output): Promise<number> {
  const view = await readSessionView(config.paths.memory, id);
  if (out.json) {
    out.result(view);
    return EXIT.ok;
  }
  out.line(`Session ${view.id}, started ${localTime(view.started)} (${view.path})`);
  if (view.questions.length === 0) out.line('No questions in it.');
  view.questions.forEach((q, i) => {
    out.line('');
    out.line(`Question ${i + 1} (${localTime(q.asked)}): ${q.question.replace(/\s+/g, ' ').trim()}`);
    const attempts = new Map<number, number>();
    for (const plan of q.plans) {
      // The trace counts lifelines left; people read "attempt 2 of step 1".
      const attempt = (attempts.get(plan.step) ?? 0) + 1;
      attempts.set(plan.step, attempt);
      out.line(out.dim(`  plan for step ${plan.step}${attempt > 1 ? `, attempt ${attempt}` : ''}:`));
      for (const line of plan.code.split('\n')) out.line(out.dim(`    ${line}`));
    }
    if (q.outcome === 'answered') out.line(`Answer: ${q.answer ?? ''}`);
    else out.line(`${OUTCOME_WORDS[q.outcome][0]!.toUpperCase()}${OUTCOME_WORDS[q.outcome].slice(1)}${q.reason ? `: ${q.reason}` : ''}`);
    if (view.summary && view.summary.throughQuestion === i + 1) {
      out.line('');
      out.line(`Summary of ${i === 0 ? 'question 1, which later questions see instead of it' : `questions 1–${i + 1}, which later questions see instead of them`}:`);
      for (const line of view.summary.text.split('\n')) out.line(`  ${line}`);
    }
  });
  return EXIT.ok;
}

/** `cortex sessions rm ID`: deletes the session's memory file and trace. */
export async function sessionRemoveCommand(config: LoadedConfig, id: string, out: Output): Promise<number> {
  const [path] = await removeSession(config.paths.memory, id);
  if (out.json) out.result({ removed: id, path });
  else out.line(`Deleted session ${id} (${path}).`);
  return EXIT.ok;
}

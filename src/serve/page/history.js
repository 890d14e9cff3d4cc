// A saved session's memory items (GET /v1/sessions/{id}) as the thread's turns, replayed through the same view as live events.
import { createTurn } from './turn.js';

/**
 * Splits items into runs: each starts at a run_metadata `start` item (the question) and holds the items of the same
 * run_id after it. Items of a run whose start is missing are dropped.
 */
function runsOf(items) {
  const runs = [];
  for (const item of items) {
    const meta = item.metadata ?? {};
    if (item.type === 'run_metadata' && meta.event === 'start') runs.push({ id: meta.run_id, started: item.timestamp, question: item.text, maxSteps: meta.max_steps, strategy: meta.strategy, items: [] });
    else if (runs.length && (meta.run_id === undefined || meta.run_id === runs[runs.length - 1].id)) runs[runs.length - 1].items.push(item);
  }
  return runs;
}

/** The events and the result a run's items stand for. */
function replay(run) {
  const events = [];
  let attempt = null;
  let result = { status: 'gave_up', reason: 'This question has no answer in the session (it may have been stopped when the server closed).' };
  const planning = (meta) => {
    const key = `${meta.step}/${meta.lifeline}`;
    if (attempt === key) return;
    attempt = key;
    events.push(['planning', { step: meta.step, maxSteps: run.maxSteps ?? meta.step, lifelinesLeft: meta.lifeline, strategy: meta.strategy ?? run.strategy }]);
  };
  for (const item of run.items) {
    const meta = item.metadata ?? {};
    if (item.type === 'tool_call') {
      planning(meta);
      events.push(['tool_call', { phase: 'end', step: meta.step, record: { tool: item.tool_name, args: item.tool_args, ok: item.success !== false, ms: meta.ms, error: meta.error } }]);
    } else if (item.type === 'tool_output') {
      planning(meta);
      events.push(['outcome', { step: meta.step, outcome: meta.outcome, detail: item.text }]);
      attempt = null;
    } else if (item.type === 'final_answer') {
      result = { status: 'answered', answer: item.final_answer ?? item.text };
    } else if (item.type === 'run_metadata' && meta.event === 'end') {
      result = { status: meta.status === 'cancelled' ? 'cancelled' : 'gave_up', reason: item.text };
    }
  }
  return { events, result };
}

/** The turns of a session, oldest first, as elements; with `before` (ISO time), only the questions started before it. */
export function sessionTurns(items, { before } = {}) {
  const cutoff = before ? Date.parse(before) : Infinity;
  const runs = runsOf(items).filter((run) => !(Date.parse(run.started) >= cutoff));
  return runs.map((run) => {
    const turn = createTurn(run.question, { running: false });
    const { events, result } = replay(run);
    for (const [type, data] of events) turn.event(type, data);
    turn.finish(result);
    return turn.root;
  });
}

// One turn of the thread: the question, its steps folded under it (open while it runs), then the answer or what went wrong.
import { duration, el, plural } from './dom.js';
import { elicitationForm } from './elicitation-form.js';
import { liveSteps } from './live-steps.js';
import { copyButton, renderMarkdown } from './markdown.js';
import { answerSources } from './sources.js';

/** A turn for `question`; `running` opens its steps and shows a working state until finish() or fail(). */
export function createTurn(question, { running = true } = {}) {
  const root = el('article', running ? 'turn running' : 'turn');
  root.append(el('div', 'question', question));
  const steps = el('details', 'steps');
  steps.open = running;
  const summary = el('summary', '', running ? 'Starting…' : 'Steps');
  const list = el('ol', 'step-list');
  steps.append(summary, list);
  const answer = el('section', 'answer');
  answer.hidden = true;
  answer.setAttribute('aria-live', 'polite');
  /** The tool servers' requests for input, by id, shown between the steps and the answer. */
  const asks = el('div', 'asks');
  const forms = new Map();
  root.append(steps, asks, answer);
  const view = liveSteps(list, (text) => {
    if (root.classList.contains('running')) summary.textContent = text || 'Working…';
  });

  const settle = (summaryText) => {
    view.dispose();
    for (const form of forms.values()) form.end('cancel');
    forms.clear();
    root.classList.remove('running');
    steps.open = false;
    summary.textContent = summaryText;
    if (list.childElementCount === 0) steps.hidden = true;
    answer.hidden = false;
  };

  return {
    root,
    /** Shows a server's request for input (an `elicitation` event) as a form to answer. */
    elicitation(data) {
      const form = elicitationForm(data);
      forms.set(data.id, form);
      // The form never takes focus: a key typed for the next question must not press Allow (it has its own click or Tab).
      asks.append(form.root);
      // Shown, never focused: a key meant for the question box must not answer it (it needs its own click or key).
      form.root.scrollIntoView({ block: 'nearest' });
    },
    /** Closes the form of an `elicitation_end` event (answered, declined, or cancelled by the server side). */
    elicitationEnd(data) {
      forms.get(data.id)?.end(data.action);
      forms.delete(data.id);
    },
    /** Says that some earlier steps could not be kept for a page joining late (a `replay_gap` event). */
    gap() {
      list.append(el('li', 'notice', 'Some earlier steps are not shown: there were too many to keep for a page opened late.'));
    },
    /** Dates the running model request back by `ms` (see liveSteps' backdate). */
    backdate: (ms) => view.backdate(ms),
    /** Shows one agent event in the steps. */
    event: (type, data) => view.event(type, data),
    /** Shows the run's result (the `result` event's data, or one rebuilt from session memory). */
    finish(result) {
      const calls = result.steps ? result.steps.reduce((n, s) => n + s.tool_calls.length, 0) : view.stats.calls;
      // The terminal's words: steps, and the retries among the attempts.
      const attempts = result.steps ? result.steps.length : view.stats.attempts;
      const steps = result.steps ? new Set(result.steps.map((s) => s.step)).size : attempts;
      const parts = [plural(steps, 'step', 'steps')];
      if (attempts > steps) parts.push(plural(attempts - steps, 'retry', 'retries'));
      parts.push(plural(calls, 'tool call', 'tool calls'));
      if (result.timings) parts.push(duration(result.timings.total_ms));
      settle(`Steps: ${parts.join(' · ')}`);
      if (result.status === 'answered') {
        answer.className = 'answer answered';
        const body = el('div', 'markdown');
        body.append(renderMarkdown(result.answer ?? '', { untrusted: Boolean(result.caution) }));
        const tools = el('div', 'answer-tools');
        tools.append(copyButton(() => result.answer ?? '', 'Copy answer'));
        answer.append(body, tools);
        const sources = answerSources(result.answer);
        if (sources) {
          sources.markCitations(body);
          answer.append(sources.section);
        }
      } else {
        answer.className = 'answer failed';
        answer.append(el('h3', '', result.status === 'cancelled' ? 'Stopped' : 'No answer'), el('p', 'reason', result.reason ?? ''));
      }
      // Where an answer drawn on web pages, mail or documents came from (plain text, never markdown).
      if (result.caution) answer.append(el('p', 'caution', result.caution));
      for (const sent of result.sent ?? []) answer.append(el('p', 'caution', `Sent: ${sent}`));
    },
    /** Shows a failure (a Failure from api.js, an `error` event, or a stop) under a plain-words heading. */
    fail(heading, detail = '') {
      settle(list.childElementCount ? 'Steps so far' : 'Steps');
      answer.className = 'answer failed';
      answer.append(el('h3', '', heading));
      if (detail) answer.append(el('p', 'reason', detail));
    },
  };
}

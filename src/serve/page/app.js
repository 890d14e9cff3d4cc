// Cortex-R page: a thread of questions and answers per session, asked over POST /v1/ask and drawn from its server-sent events.
import { api, failureOf, getJson, headingFor, sseEvents } from './api.js';
import { el } from './dom.js';
import { sessionTurns } from './history.js';
import { loadDocuments, loadServers, loadSessions } from './sidebar.js';
import { upload } from './uploads.js';
import { createTurn } from './turn.js';

const $ = (id) => document.getElementById(id);
/** Within this many pixels of the bottom, the thread follows new text. */
const FOLLOW_SLACK_PX = 120;

let session = new URL(location.href).searchParams.get('session') || '';
let running = null;

function nearBottom() {
  return window.innerHeight + window.scrollY >= document.documentElement.scrollHeight - FOLLOW_SLACK_PX;
}
function toBottom() {
  window.scrollTo({ top: document.documentElement.scrollHeight });
}

function emptyState() {
  const box = el('div', 'empty');
  box.append(el('h2', '', 'Ask Cortex-R'), el('p', 'muted', 'It writes a small program to answer: arithmetic, your documents, the web. Each step shows under your question.'));
  return box;
}

function failureBox(heading, detail) {
  const box = el('section', 'answer failed');
  box.append(el('h3', '', heading), el('p', 'reason', detail ?? ''));
  return box;
}

function setSession(id, { push }) {
  session = id;
  const url = id ? `?session=${encodeURIComponent(id)}` : location.pathname;
  if (push) history.pushState({ session: id }, '', url);
  else history.replaceState({ session: id }, '', url);
}

/**
 * The question running in session `id` (a reload, another tab), as its stream after the `question` event, or null.
 * Opened before the saved items are read, so nothing the question does between the two is missed.
 */
async function joinRunning(id, signal) {
  let response;
  try {
    response = await api(`/v1/sessions/${encodeURIComponent(id)}/live`, { headers: { accept: 'text/event-stream' }, signal });
  } catch {
    return null;
  }
  if (!response.ok) return null;
  const events = sseEvents(response);
  const first = await events.next().catch(() => ({ done: true }));
  return first.done || first.value.event !== 'question' ? null : { ...first.value.data, events };
}

async function renderThread() {
  const thread = $('thread');
  if (!session) return thread.replaceChildren(emptyState());
  const shown = session;
  const controller = new AbortController();
  running = { controller, session: Promise.resolve(shown) };
  const live = await joinRunning(shown, controller.signal);
  if (running?.controller === controller) running = null;
  try {
    const { items } = await getJson(`/v1/sessions/${encodeURIComponent(shown)}`);
    if (shown !== session) return controller.abort();
    // The running question's saved items are drawn from its stream instead.
    const turns = sessionTurns(items, { before: live?.started });
    thread.replaceChildren(...(turns.length || live ? turns : [emptyState()]));
  } catch (err) {
    controller.abort();
    if (shown !== session) return;
    thread.replaceChildren(failureBox(err.status === 404 ? 'This session does not exist' : err.heading ?? 'The session could not be read', err.detail ?? err.message));
    return toBottom();
  }
  toBottom();
  if (live) void watch(live.question, { controller, session: Promise.resolve(shown), events: async () => live.events, joined: live });
}

/** Shows session `id` ('' for a new one). Leaving a running question does not stop it: it can be opened again. */
async function openSession(id, { push = true } = {}) {
  running?.controller.abort();
  setSession(id, { push: push && id !== session });
  document.body.classList.remove('menu-open');
  await Promise.all([renderThread(), loadSessions(session, openSession)]);
  $('question').focus();
}

/**
 * Draws a question's events into `turn`; true once its result (or error) came. `joined` (a page joining late): after
 * its `replayed` events, the model request still running is dated back by `model_request_ms`.
 */
async function draw(turn, events, joined) {
  let drawn = 0;
  for await (const { event, data } of events) {
    const follow = nearBottom();
    if (event === 'result') {
      turn.finish(data);
      void loadSessions(session, openSession);
      // Answering may have indexed documents (or failed to): the list shows the index as it is now.
      void loadDocuments();
      return true;
    }
    if (event === 'error') {
      turn.fail(headingFor(data.error?.code), data.error?.message);
      return true;
    }
    // A new session joins the list once its question is saved in it (the servers are chosen after that).
    if (event === 'perceived' && !$('sessions').querySelector('a.current')) void loadSessions(session, openSession);
    if (event === 'elicitation') turn.elicitation(data);
    else if (event === 'elicitation_end') turn.elicitationEnd(data);
    else if (event === 'replay_gap') turn.gap();
    else turn.event(event, data);
    if (joined && ++drawn === joined.replayed) turn.backdate(joined.model_request_ms);
    if (follow) toBottom();
  }
  return false;
}

/**
 * Shows `question` as a running turn fed by `events()`; `session` resolves to its session id once known (for
 * Stop). Aborting `controller` only stops watching (another session was opened): the question runs on.
 */
async function watch(question, { controller, session: sessionId, events, joined }) {
  const thread = $('thread');
  thread.querySelector('.empty')?.remove();
  const turn = createTurn(question);
  thread.append(turn.root);
  toBottom();
  const mine = { controller, session: sessionId, turn };
  running = mine;
  document.body.classList.add('busy');
  $('ask').hidden = true;
  $('stop').hidden = false;
  try {
    if (!(await draw(turn, await events(), joined))) turn.fail('The answer stopped arriving', 'The server closed the connection before the answer; it may have stopped.');
  } catch (err) {
    if (err.name === 'AbortError') {
      if (mine.stopped) turn.fail('Stopped', 'You stopped this question before it was answered.');
    } else {
      turn.fail(err.heading ?? 'Something went wrong on this page', err.detail ?? err.message);
      // Nothing typed is lost: an unsent question goes back into an empty box.
      if (err.unsent && !$('question').value) $('question').value = question;
    }
  } finally {
    if (running === mine) {
      running = null;
      document.body.classList.remove('busy');
      $('ask').hidden = false;
      $('stop').hidden = true;
    }
  }
}

function ask(question) {
  const controller = new AbortController();
  let named;
  const sessionId = new Promise((resolve) => (named = resolve));
  const events = async () => {
    let response;
    try {
      response = await api('/v1/ask', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
        body: JSON.stringify(session ? { question, session_id: session } : { question }),
        signal: controller.signal,
      });
      if (!response.ok) throw await failureOf(response);
    } catch (err) {
      named(null);
      err.unsent = true;
      throw err;
    }
    // The address names the session at once: a reload or a second tab opened on it joins this question.
    const id = response.headers.get('cortex-session-id');
    named(id);
    // Replaced, not pushed: Back from a new session's first question should not lead to a blank page that left it.
    if (id && id !== session) setSession(id, { push: false });
    return sseEvents(response);
  };
  return watch(question, { controller, session: sessionId, events });
}

/** Stop: the server cancels the question, and every tab watching it gets the cancelled result. */
async function stop() {
  const current = running;
  if (!current) return;
  $('stop').disabled = true;
  try {
    const id = await current.session;
    const response = id ? await api(`/v1/sessions/${encodeURIComponent(id)}/stop`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }) : null;
    // 404: it had just ended; its result is on its way.
    if (response && !response.ok && response.status !== 404) throw await failureOf(response);
    if (!response) throw new Error('no session yet');
  } catch {
    // The server cannot be told: stop watching at least.
    current.stopped = true;
    current.controller.abort();
  } finally {
    $('stop').disabled = false;
  }
}

// ---- wiring ----

$('ask-form').addEventListener('submit', (e) => {
  e.preventDefault();
  const question = $('question').value.trim();
  if (!question || running) return;
  $('question').value = '';
  void ask(question);
});
$('question').addEventListener('keydown', (e) => {
  // Enter sends, Shift+Enter adds a line; Enter that ends an input-method composition only confirms it.
  if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
    e.preventDefault();
    $('ask-form').requestSubmit();
  }
});
$('stop').addEventListener('click', () => void stop());
$('new-session').addEventListener('click', () => void openSession(''));
$('menu').addEventListener('click', () => document.body.classList.toggle('menu-open'));
window.addEventListener('popstate', () => void openSession(new URL(location.href).searchParams.get('session') || '', { push: false }));

$('file').addEventListener('change', () => {
  for (const f of $('file').files) void upload(f, loadDocuments);
  $('file').value = '';
});
// A document dragged over any part of the page lights up the chat; dropped anywhere, it is uploaded.
const carriesFiles = (e) => Array.from(e.dataTransfer?.types ?? []).includes('Files');
for (const type of ['dragenter', 'dragover']) {
  document.addEventListener(type, (e) => {
    if (!carriesFiles(e)) return;
    e.preventDefault();
    document.body.classList.add('dragging');
  });
}
document.addEventListener('dragleave', (e) => {
  // Only leaving the window ends the highlight, not moving between the page's elements.
  if (!e.relatedTarget) document.body.classList.remove('dragging');
});
document.addEventListener('drop', (e) => {
  e.preventDefault();
  document.body.classList.remove('dragging');
  for (const f of e.dataTransfer?.files ?? []) void upload(f, loadDocuments);
});

void loadServers();
void loadDocuments();
void openSession(session, { push: false });

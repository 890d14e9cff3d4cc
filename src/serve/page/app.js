// Cortex-R page: a thread of questions and answers per session, asked over POST /v1/ask and drawn from its server-sent events.
import { api, failureOf, getJson, headingFor, sseEvents } from './api.js';
import { el } from './dom.js';
import { sessionTurns } from './history.js';
import { loadDocuments, loadServers, loadSessions, upload } from './sidebar.js';
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

async function renderThread() {
  const thread = $('thread');
  if (!session) return thread.replaceChildren(emptyState());
  const shown = session;
  try {
    const { items } = await getJson(`/v1/sessions/${encodeURIComponent(shown)}`);
    if (shown !== session) return;
    const turns = sessionTurns(items);
    thread.replaceChildren(...(turns.length ? turns : [emptyState()]));
  } catch (err) {
    if (shown !== session) return;
    thread.replaceChildren(failureBox(err.status === 404 ? 'This session does not exist' : err.heading ?? 'The session could not be read', err.detail ?? err.message));
  }
  toBottom();
}

/** Shows session `id` ('' for a new one). */
async function openSession(id, { push = true } = {}) {
  running?.abort();
  setSession(id, { push: push && id !== session });
  document.body.classList.remove('menu-open');
  await Promise.all([renderThread(), loadSessions(session, openSession)]);
  $('question').focus();
}

async function ask(question) {
  const thread = $('thread');
  thread.querySelector('.empty')?.remove();
  const turn = createTurn(question);
  thread.append(turn.root);
  toBottom();
  const controller = new AbortController();
  running = controller;
  document.body.classList.add('busy');
  $('ask').hidden = true;
  $('stop').hidden = false;
  let ended = false;
  try {
    const response = await api('/v1/ask', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify(session ? { question, session_id: session } : { question }),
      signal: controller.signal,
    });
    if (!response.ok) throw await failureOf(response);
    for await (const { event, data } of sseEvents(response)) {
      const follow = nearBottom();
      if (event === 'result') {
        ended = true;
        turn.finish(data);
        if (data.session_id !== session) setSession(data.session_id, { push: true });
        void loadSessions(session, openSession);
        // Answering may have indexed documents (or failed to): the list shows the index as it is now.
        void loadDocuments();
      } else if (event === 'elicitation') {
        turn.elicitation(data);
      } else if (event === 'elicitation_end') {
        turn.elicitationEnd(data);
      } else if (event === 'error') {
        ended = true;
        turn.fail(headingFor(data.error?.code), data.error?.message);
      } else {
        turn.event(event, data);
      }
      if (follow) toBottom();
    }
    if (!ended) turn.fail('The answer stopped arriving', 'The server closed the connection before the answer; it may have stopped.');
  } catch (err) {
    if (err.name === 'AbortError') {
      turn.fail('Stopped', 'You stopped this question before it was answered.');
    } else {
      turn.fail(err.heading ?? 'Something went wrong on this page', err.detail ?? err.message);
      // Nothing typed is lost: an unsent question goes back into an empty box.
      if (!$('question').value) $('question').value = question;
    }
  } finally {
    if (running === controller) running = null;
    document.body.classList.remove('busy');
    $('ask').hidden = false;
    $('stop').hidden = true;
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
$('stop').addEventListener('click', () => running?.abort());
$('new-session').addEventListener('click', () => void openSession(''));
$('menu').addEventListener('click', () => document.body.classList.toggle('menu-open'));
window.addEventListener('popstate', () => void openSession(new URL(location.href).searchParams.get('session') || '', { push: false }));

$('file').addEventListener('change', () => {
  for (const f of $('file').files) void upload(f);
});
const zone = $('dropzone');
for (const type of ['dragenter', 'dragover']) {
  document.addEventListener(type, (e) => {
    e.preventDefault();
    zone.classList.add('over');
  });
}
document.addEventListener('dragleave', (e) => {
  if (e.target === zone || !e.relatedTarget) zone.classList.remove('over');
});
document.addEventListener('drop', (e) => {
  e.preventDefault();
  zone.classList.remove('over');
  for (const f of e.dataTransfer.files) void upload(f);
});

void loadServers();
void loadDocuments();
void openSession(session, { push: false });

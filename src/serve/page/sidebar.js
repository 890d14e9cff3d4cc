// The side panel: sessions by their first question, the documents folder (refused files marked with why), servers.
import { getJson } from './api.js';
import { el, relativeTime } from './dom.js';

/** Sessions listed. */
const SESSIONS_LISTED = 50;
const FIRST_QUESTION_CHARS = 80;

const $ = (id) => document.getElementById(id);

/** Fills the servers line. */
export async function loadServers() {
  try {
    const { servers } = await getJson('/v1/servers');
    const text = servers.map((s) => `${s.id} (${s.state === 'ready' ? `${s.tools.length} tools` : s.state})`).join(', ');
    $('servers').textContent = `Servers: ${text || 'none'}`;
  } catch (err) {
    $('servers').textContent = err.heading ?? 'Servers: unknown';
  }
}

/** Lists the sessions, newest first, marking `current`; `open(id)` is called when one is picked. */
export async function loadSessions(current, open) {
  const list = $('sessions');
  let sessions;
  try {
    ({ sessions } = await getJson(`/v1/sessions?limit=${SESSIONS_LISTED}`));
  } catch (err) {
    list.replaceChildren(el('li', 'muted', err.heading ?? 'Sessions could not be listed'));
    return;
  }
  if (!sessions.length) {
    list.replaceChildren(el('li', 'muted', 'No sessions yet'));
    return;
  }
  list.replaceChildren(
    ...sessions.map((s) => {
      const item = el('li');
      const link = el('a', s.id === current ? 'session current' : 'session');
      link.href = `?session=${encodeURIComponent(s.id)}`;
      if (s.id === current) link.setAttribute('aria-current', 'page');
      const question = s.first_query ?? (s.error ? 'unreadable session' : '(no question)');
      link.append(
        el('span', 'session-question', question.length > FIRST_QUESTION_CHARS ? `${question.slice(0, FIRST_QUESTION_CHARS - 1)}…` : question),
        el('span', 'session-time muted', relativeTime(s.started)),
      );
      link.title = s.first_query ?? s.id;
      link.addEventListener('click', (e) => {
        if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey) return;
        e.preventDefault();
        open(s.id);
      });
      item.append(link);
      return item;
    }),
  );
}

/** Lists the documents folder; files the indexer could not read, and entries it refuses, say why. */
export async function loadDocuments() {
  const list = $('documents');
  let body;
  try {
    body = await getJson('/v1/documents');
  } catch (err) {
    list.replaceChildren(el('li', 'muted', err.heading ?? 'Documents could not be listed'));
    return;
  }
  const { documents, refused = [], total } = body;
  const items = documents.map((d) => {
    const item = el('li', d.failed ? 'refused' : '');
    item.append(el('span', 'doc-name', d.name), el('span', 'muted', ` ${Math.ceil(d.bytes / 1024)} KB`));
    if (d.failed) item.append(el('span', 'doc-reason', `not indexed: ${d.failed}`));
    return item;
  });
  for (const r of refused) {
    const item = el('li', 'refused');
    item.append(el('span', 'doc-name', r.file), el('span', 'doc-reason', `not read: ${r.reason}`));
    items.push(item);
  }
  if (total > documents.length) items.push(el('li', 'muted', `… ${total - documents.length} more`));
  if (!items.length) items.push(el('li', 'muted', 'No documents yet'));
  list.replaceChildren(...items);
}

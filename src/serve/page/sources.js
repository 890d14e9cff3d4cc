// The sources an answer cites ([Source: file, ID: chunk, page N]), each opening its passage in place.
import { api, failureOf } from './api.js';
import { el } from './dom.js';

/** `[Source: notes.md, ID: notes.md#2, page 3]`, as the documents server writes it (ID and page optional). */
const CITATION = /\[Source:\s*([^\]\n]{1,300}?)(?:,\s*ID:\s*([^\]\n]{1,300}?))?(?:,\s*page\s*(\d{1,6}))?\]/g;
/** Sources listed under one answer at most. */
const MAX_SOURCES_SHOWN = 20;

/** The distinct sources `text` cites, in order. */
export function citations(text) {
  const found = new Map();
  for (const m of String(text ?? '').matchAll(CITATION)) {
    const [, doc, id, page] = m;
    const key = id ?? doc;
    if (!found.has(key)) found.set(key, { doc: doc.trim(), id: id?.trim() ?? null, page: page ? Number(page) : null });
    if (found.size >= MAX_SOURCES_SHOWN) break;
  }
  return [...found.values()];
}

function label({ doc, page }) {
  return page ? `${doc}, page ${page}` : doc;
}

async function passageBox(source) {
  const box = el('div', 'passage');
  try {
    const response = await api(`/v1/passages?id=${encodeURIComponent(source.id)}`);
    if (!response.ok) throw await failureOf(response);
    const passage = await response.json();
    box.append(el('div', 'passage-head', passage.page ? `${passage.doc} · page ${passage.page}` : passage.doc));
    box.append(el('blockquote', 'passage-text', `${passage.cut ? '… ' : ''}${passage.text}`));
  } catch (err) {
    box.classList.add('bad');
    box.append(el('div', 'passage-head', err.heading ?? 'The passage could not be opened'), el('p', '', err.detail ?? err.message));
  }
  return box;
}

/** The "Sources" list of an answer, or null when it cites none. A source with an ID opens its passage below itself. */
export function sourcesList(answer) {
  const cited = citations(answer);
  if (cited.length === 0) return null;
  const list = el('ol', 'source-list');
  for (const source of cited) {
    const item = el('li');
    if (!source.id) {
      item.append(el('span', 'source', label(source)));
    } else {
      const button = el('button', 'source', label(source));
      button.type = 'button';
      button.setAttribute('aria-expanded', 'false');
      let box = null;
      button.addEventListener('click', async () => {
        const open = button.getAttribute('aria-expanded') === 'true';
        button.setAttribute('aria-expanded', String(!open));
        if (open) {
          box?.remove();
          box = null;
          return;
        }
        box = await passageBox(source);
        if (button.getAttribute('aria-expanded') === 'true') item.append(box);
      });
      item.append(button);
    }
    list.append(item);
  }
  const section = el('section', 'sources');
  section.append(el('h3', '', cited.length === 1 ? 'Source' : 'Sources'), list);
  return section;
}

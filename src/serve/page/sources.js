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

/**
 * The "Sources" of an answer, or null when it cites none: `section` lists them (one with an ID opens its passage below
 * itself); `markCitations(root)` turns each `[Source: …]` in the rendered answer into a numbered button opening it.
 */
export function answerSources(answer) {
  const cited = citations(answer);
  if (cited.length === 0) return null;
  const list = el('ol', 'source-list');
  const toggles = cited.map((source) => {
    const item = el('li');
    list.append(item);
    if (!source.id) {
      item.append(el('span', 'source', label(source)));
      return () => item.scrollIntoView({ block: 'nearest' });
    }
    const button = el('button', 'source', label(source));
    button.type = 'button';
    button.setAttribute('aria-expanded', 'false');
    let box = null;
    const toggle = async (open) => {
      button.setAttribute('aria-expanded', String(open));
      box?.remove();
      box = null;
      if (!open) return;
      const shown = await passageBox(source);
      if (button.getAttribute('aria-expanded') !== 'true') return;
      box = shown;
      item.append(box);
    };
    button.addEventListener('click', () => toggle(button.getAttribute('aria-expanded') !== 'true'));
    item.append(button);
    return async () => {
      if (button.getAttribute('aria-expanded') !== 'true') await toggle(true);
      item.scrollIntoView({ block: 'nearest' });
    };
  });
  const section = el('section', 'sources');
  section.append(el('h3', '', cited.length === 1 ? 'Source' : 'Sources'), list);
  const numberOf = new Map(cited.map((source, i) => [source.id ?? source.doc, i]));

  const markCitations = (root) => {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT, {
      acceptNode: (node) => (node.parentElement?.closest('pre, code') ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT),
    });
    const nodes = [];
    while (walker.nextNode()) if (walker.currentNode.nodeValue.includes('[Source:')) nodes.push(walker.currentNode);
    for (const node of nodes) {
      const parts = [];
      let last = 0;
      for (const m of node.nodeValue.matchAll(CITATION)) {
        const i = numberOf.get(m[2]?.trim() ?? m[1].trim());
        if (i === undefined) continue;
        parts.push(document.createTextNode(node.nodeValue.slice(last, m.index).replace(/\s+$/, '')));
        const cite = el('button', 'cite', String(i + 1));
        cite.type = 'button';
        cite.title = label(cited[i]);
        cite.setAttribute('aria-label', `Source ${i + 1}: ${label(cited[i])}`);
        cite.addEventListener('click', () => toggles[i]());
        parts.push(cite);
        last = m.index + m[0].length;
      }
      if (!parts.length) continue;
      parts.push(document.createTextNode(node.nodeValue.slice(last)));
      node.replaceWith(...parts);
    }
  };
  return { section, markCitations };
}

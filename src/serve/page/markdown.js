// Answers as markdown: parsed by marked, sanitised by DOMPurify (no script, handler or javascript: URL survives), then given copy buttons.
import { marked } from '/vendor/marked.esm.js';
import DOMPurify from '/vendor/purify.es.mjs';
import { el } from './dom.js';

/** How long "Copied" shows on a copy button. */
const COPIED_SHOWN_MS = 1500;

DOMPurify.addHook('afterSanitizeAttributes', (node) => {
  // Links the model wrote open elsewhere and tell the target nothing.
  if (node.tagName === 'A' && node.hasAttribute('href')) {
    node.setAttribute('target', '_blank');
    node.setAttribute('rel', 'noopener noreferrer');
  }
});

const PURIFY = {
  USE_PROFILE: { html: true },
  FORBID_TAGS: ['style', 'form', 'input', 'button', 'textarea', 'select', 'option'],
  FORBID_ATTR: ['style'],
  RETURN_DOM_FRAGMENT: true,
};

/** Copies `text`; the clipboard API where the page is a secure context, else a hidden selection. */
export async function copyText(text) {
  if (navigator.clipboard && window.isSecureContext) return navigator.clipboard.writeText(text);
  const area = Object.assign(document.createElement('textarea'), { value: text });
  area.setAttribute('readonly', '');
  area.className = 'offscreen';
  document.body.append(area);
  area.select();
  document.execCommand('copy');
  area.remove();
}

/** A button that copies what `textOf()` returns when clicked. */
export function copyButton(textOf, label = 'Copy') {
  const button = el('button', 'copy', label);
  button.type = 'button';
  button.addEventListener('click', async () => {
    try {
      await copyText(textOf());
      button.textContent = 'Copied';
    } catch {
      button.textContent = 'Copy failed';
    }
    setTimeout(() => (button.textContent = label), COPIED_SHOWN_MS);
  });
  return button;
}

/**
 * Links of an answer drawn on outside content: each shows its full address, and a click only reveals it with an
 * "Open" link of its own, so a link whose words say one place and whose address is another cannot be followed blind.
 */
function guardLinks(fragment) {
  for (const link of fragment.querySelectorAll('a[href]')) {
    const href = link.href;
    if (link.textContent.trim() !== href) link.append(el('span', 'link-address', ` (${href})`));
    link.addEventListener('click', (event) => {
      event.preventDefault();
      if (link.nextElementSibling?.classList.contains('link-check')) return;
      const check = el('span', 'link-check', 'From text written outside Cortex-R: ');
      const open = Object.assign(el('a', '', `open ${href}`), { href, target: '_blank', rel: 'noopener noreferrer' });
      check.append(open);
      link.after(check);
    });
  }
}

/**
 * An answer's image whose source cannot load (gone, not an image, or refused by the page's policy) is removed
 * rather than shown as a broken-image icon; one that loads is shown as it came.
 */
function dropIfBroken(img) {
  img.addEventListener('error', () => img.remove(), { once: true });
  // Already failed before the listener (a cached failure): its natural size is 0 once complete.
  if (img.complete && img.getAttribute('src') && img.naturalWidth === 0 && img.ownerDocument === document) img.remove();
}

/**
 * Markdown `text` as sanitised DOM: code blocks scroll in their own box with a copy button, tables too. `untrusted`:
 * the answer drew on outside content, so its links show their address and open only through a second click.
 */
export function renderMarkdown(text, { untrusted = false } = {}) {
  const html = marked.parse(String(text), { gfm: true, breaks: true, async: false });
  const fragment = DOMPurify.sanitize(html, PURIFY);
  for (const pre of fragment.querySelectorAll('pre')) {
    const box = el('div', 'code-box');
    pre.replaceWith(box);
    box.append(copyButton(() => pre.textContent), pre);
  }
  for (const table of fragment.querySelectorAll('table')) {
    const box = el('div', 'table-box');
    table.replaceWith(box);
    box.append(table);
  }
  for (const img of fragment.querySelectorAll('img')) dropIfBroken(img);
  if (untrusted) guardLinks(fragment);
  return fragment;
}

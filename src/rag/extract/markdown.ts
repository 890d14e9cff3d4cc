// HTML → Markdown with turndown, tuned for indexing: no images, no script-ish links, ATX headings.
import TurndownService from 'turndown';

/** Tags whose content is never text a reader sees. */
const DROPPED_TAGS = ['script', 'style', 'noscript', 'template', 'iframe', 'object', 'embed', 'canvas', 'svg', 'head'];

let service: TurndownService | null = null;

/** Converts an HTML string or a DOM node (jsdom) to Markdown. Throws on input it can't walk (e.g. nesting deeper than the stack). */
export function htmlToMarkdown(input: string | object): string {
  service ??= createService();
  return service.turndown(input as Parameters<TurndownService['turndown']>[0]);
}

function createService(): TurndownService {
  const td = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-', emDelimiter: '_' });
  td.remove(DROPPED_TAGS as Parameters<TurndownService['remove']>[0]);
  // Images carry no text but their alt; data: URIs would flood the index.
  td.addRule('imageAlt', {
    filter: 'img',
    replacement: (_content, node) => {
      const alt = (node as unknown as { getAttribute(name: string): string | null }).getAttribute('alt')?.trim();
      return alt ? ` ${alt} ` : '';
    },
  });
  // Only web links keep their target; javascript:, data: and in-page anchors become plain text.
  td.addRule('webLinks', {
    filter: 'a',
    replacement: (content, node) => {
      const href = (node as unknown as { getAttribute(name: string): string | null }).getAttribute('href')?.trim() ?? '';
      const text = content.trim();
      if (!text) return '';
      return /^https?:\/\//i.test(href) ? `[${text}](${href.replace(/[()\s]/g, percentEncode)})` : content;
    },
  });
  return td;
}

function percentEncode(char: string): string {
  return `%${char.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`;
}

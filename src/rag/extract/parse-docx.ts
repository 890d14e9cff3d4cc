// DOCX → Markdown with mammoth (to HTML, images dropped, no external files) and turndown.
import mammoth from 'mammoth';
import { errorMessage } from '../../errors.js';
import type { ImageCollector } from './image-collector.js';
import { htmlToMarkdown } from './markdown.js';
import { parseError, type ParseOutcome } from './parsed.js';
import { markdownTitle } from './parse-text.js';

/** Mammoth's own warnings passed on per file (it reports every unknown style). */
const MAX_MAMMOTH_WARNINGS = 3;

/**
 * Converts a Word document's body to Markdown (title: its first Heading 1); a damaged or non-DOCX file →
 * `parse_error`. With `images`, each embedded picture becomes the placeholder of its caption where it stood.
 */
export async function parseDocx(bytes: Uint8Array, name: string, images?: ImageCollector): Promise<ParseOutcome> {
  let pictures = 0;
  let html: string;
  let messages: Array<{ type: string; message: string }>;
  try {
    const result = await mammoth.convertToHtml(
      { buffer: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) },
      {
        // An empty src keeps image bytes out of the output (no data: URIs); the alt carries the caption placeholder.
        convertImage: mammoth.images.imgElement(async (image) => {
          if (!images || images.full()) return { src: '' };
          const placeholder = await images.addEncoded(await image.read(), { kind: 'figure', page: 1, label: `${name} picture ${++pictures}` });
          return placeholder ? { src: '', alt: placeholder } : { src: '' };
        }),
        // Linked images could name any file on this machine.
        externalFileAccess: false,
      },
    );
    html = result.value;
    messages = result.messages;
  } catch (err) {
    return parseError(`${name} is not a readable Word (.docx) document (${errorMessage(err)}).`);
  }
  const warnings = messages
    .filter((m) => m.type === 'error' || m.type === 'warning')
    .slice(0, MAX_MAMMOTH_WARNINGS)
    .map((m) => `${name}: ${m.message}`);
  const text = htmlToMarkdown(html);
  // DOCX core properties are not read by mammoth; the first Heading 1 is the title a reader sees.
  return { ok: true, title: markdownTitle(text), pages: [{ page: 1, text }], warnings };
}

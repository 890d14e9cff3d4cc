// DOCX → Markdown with mammoth (to HTML, images dropped, no external files) and turndown.
import mammoth from 'mammoth';
import { errorMessage } from '../../errors.js';
import { htmlToMarkdown } from './markdown.js';
import { parseError, type ParseOutcome } from './parsed.js';
import { markdownTitle } from './parse-text.js';

/** Mammoth's own warnings passed on per file (it reports every unknown style). */
const MAX_MAMMOTH_WARNINGS = 3;

/** Converts a Word document's body to Markdown (title: its first Heading 1); a damaged or non-DOCX file → `parse_error`. */
export async function parseDocx(bytes: Uint8Array, name: string): Promise<ParseOutcome> {
  let html: string;
  let messages: Array<{ type: string; message: string }>;
  try {
    const result = await mammoth.convertToHtml(
      { buffer: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) },
      {
        // An empty src keeps images (which are never text) out of the output instead of inlining them as data: URIs.
        convertImage: mammoth.images.imgElement(async () => ({ src: '' })),
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

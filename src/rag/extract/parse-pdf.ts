// PDF → text per page with pdfjs-dist (legacy build for Node): no eval, no font faces, no fetches.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { errorMessage } from '../../errors.js';
import type { ExtractedPage } from '../types.js';
import type { ImageCollector } from './image-collector.js';
import { MIN_PDF_CHARS_PER_PAGE } from './limits.js';
import { MAX_IMAGE_PIXELS } from '../vision/image-limits.js';
import { collectFigures, collectScannedPage, placeFigures } from './pdf-images.js';
import { parseError, type ParseOutcome } from './parsed.js';
import { rebuildLines, type PdfTextItem } from './pdf-lines.js';

/** Packaged data pdfjs reads from disk (not the network): CMaps for CJK fonts, metrics of the 14 standard fonts. */
const PDFJS_DIR = dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'));

/**
 * Extracts the text layer of every page, keeping page numbers. With `images` (a captioner is set up), figures
 * get a placeholder where they stand and a page without a text layer is rendered for transcription; without
 * it, no text on any page → `no_text` ("looks scanned") and some pages without text → a warning.
 * Very little text overall → a warning; a password → `parse_error` saying so. Stops reading pages once
 * `maxTextChars` is reached.
 */
export async function parsePdf(bytes: Uint8Array, name: string, maxTextChars: number, images?: ImageCollector): Promise<ParseOutcome> {
  const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const task = pdfjs.getDocument({
    data: bytes,
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    useWorkerFetch: false,
    isOffscreenCanvasSupported: false,
    isImageDecoderSupported: false,
    enableXfa: false,
    // Bigger images are never decoded (pdfjs draws nothing for them): a decompression bomb costs no memory.
    maxImageSize: MAX_IMAGE_PIXELS,
    disableAutoFetch: true,
    disableStream: true,
    stopAtErrors: false,
    cMapUrl: join(PDFJS_DIR, 'cmaps') + '/',
    cMapPacked: true,
    standardFontDataUrl: join(PDFJS_DIR, 'standard_fonts') + '/',
    // Errors only: pdfjs warns on every odd font, and the worker's console is not the user's.
    verbosity: 0,
  });
  try {
    let doc: Awaited<typeof task.promise>;
    try {
      doc = await task.promise;
    } catch (err) {
      return openFailure(err, name);
    }
    const pages: ExtractedPage[] = [];
    const emptyPages: number[] = [];
    const failedPages: number[] = [];
    const scannedPages: number[] = [];
    let chars = 0;
    let pagesRead = 0;
    // Bounded by the page count; a text cap ends it early.
    for (let n = 1; n <= doc.numPages && chars < maxTextChars; n++) {
      pagesRead = n;
      try {
        const page = await doc.getPage(n);
        const content = await page.getTextContent({ includeMarkedContent: false });
        const items: PdfTextItem[] = content.items.filter((item): item is PdfTextItem & typeof item => 'str' in item);
        let text = rebuildLines(items);
        if (images && text.replace(/\s/g, '') === '') {
          text = await collectScannedPage(page, images, n);
          if (text) scannedPages.push(n);
        } else if (images) {
          // The lines are rebuilt only when figures take places among them.
          const figures = await collectFigures(page, pdfjs.OPS, images, n, name);
          if (figures.length > 0) text = rebuildLines(placeFigures(items, figures));
        }
        page.cleanup();
        if (text.replace(/\s/g, '') === '') emptyPages.push(n);
        else pages.push({ page: n, text });
        chars += text.length;
      } catch {
        failedPages.push(n);
      }
    }
    const title = await readTitle(doc);
    // Scanned pages count as text only once transcribed, on the host.
    const visibleChars = pages.filter((p) => !scannedPages.includes(p.page)).reduce((sum, p) => sum + p.text.replace(/\s/g, '').length, 0);
    if (pages.length === 0) {
      if (failedPages.length === pagesRead) return parseError(`${name}: none of its ${pagesRead} page(s) could be read; the PDF looks damaged.`);
      return {
        ok: false,
        reason: 'no_text',
        message:
          `${name} has no text layer on any of its ${pagesRead} page(s); it looks scanned (an image of text). ` +
          'Set a vision model (profiles.yaml llm.vision) or install Tesseract OCR to read it.',
      };
    }
    const warnings: string[] = [];
    if (emptyPages.length > 0) warnings.push(`${pageList(emptyPages)} of ${name} ${emptyPages.length === 1 ? 'has' : 'have'} no text layer (scanned or image-only).`);
    if (failedPages.length > 0) warnings.push(`${pageList(failedPages)} of ${name} could not be read and ${failedPages.length === 1 ? 'was' : 'were'} skipped.`);
    if (scannedPages.length === 0 && visibleChars < MIN_PDF_CHARS_PER_PAGE * pagesRead) {
      warnings.push(`${name} has very little text (${visibleChars} characters on ${pagesRead} page(s)); it may be a scan with a partial text layer.`);
    }
    return { ok: true, title, pages, warnings };
  } finally {
    await task.destroy().catch(() => undefined);
  }
}

function openFailure(err: unknown, name: string): ParseOutcome {
  const kind = (err as { name?: string } | null)?.name;
  if (kind === 'PasswordException') return parseError(`${name} is password-protected (encrypted); remove the password to index it.`);
  if (kind === 'InvalidPDFException') return parseError(`${name} is not a readable PDF (${errorMessage(err)}).`);
  return parseError(`${name} could not be opened as a PDF (${errorMessage(err)}).`);
}

async function readTitle(doc: { getMetadata(): Promise<{ info: object }> }): Promise<string | null> {
  try {
    const { info } = await doc.getMetadata();
    const title = (info as { Title?: unknown }).Title;
    return typeof title === 'string' && title.trim() ? title.trim() : null;
  } catch {
    return null;
  }
}

/** "Page 3", "Pages 2, 5, 9", "Pages 1, 2, 3 … (40 pages)". */
function pageList(pages: number[]): string {
  if (pages.length === 1) return `Page ${pages[0]}`;
  const shown = pages.slice(0, 8).join(', ');
  return pages.length > 8 ? `Pages ${shown} … (${pages.length} pages)` : `Pages ${shown}`;
}

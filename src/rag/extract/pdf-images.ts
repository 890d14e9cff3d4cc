// Images of one PDF page for captioning: figures found in its operator list (with where they stand), and whole scanned pages rendered.
import type { PDFPageProxy } from 'pdfjs-dist/types/src/display/api.js';
import { MAX_IMAGE_OPS_PER_PDF_PAGE, SCAN_RENDER_LONG_SIDE_PX } from '../vision/image-limits.js';
import { isCaptionWorthy, loadCanvas, prepareCanvas, type RawPixels } from '../vision/prepare-image.js';
import type { ImageCollector } from './image-collector.js';
import type { PdfTextItem } from './pdf-lines.js';

/** The pdfjs operator codes this module reads (pdfjs-dist's OPS table). */
interface PdfOps {
  save: number;
  restore: number;
  transform: number;
  paintFormXObjectBegin: number;
  paintFormXObjectEnd: number;
  paintImageXObject: number;
  paintInlineImageXObject: number;
}

/** Most a scanned page is enlarged when rendered (a tiny page must not become a huge bitmap). */
const MAX_SCAN_SCALE = 4;

type Matrix = [number, number, number, number, number, number];

/** A figure's placeholder and where it stands on the page (PDF units, y up). */
export interface PlacedFigure {
  placeholder: string;
  x: number;
  bottom: number;
}

/**
 * Collects the page's figures (paintImageXObject / paintInlineImageXObject) in drawing order, tracking the
 * transformation matrix to know where each stands. Tiny images are skipped from their declared size before
 * their pixels are touched; at most MAX_IMAGE_OPS_PER_PDF_PAGE image operations are looked at.
 */
export async function collectFigures(page: PDFPageProxy, OPS: PdfOps, images: ImageCollector, pageNo: number, name: string): Promise<PlacedFigure[]> {
  const list = await page.getOperatorList();
  const placed: PlacedFigure[] = [];
  const stack: Matrix[] = [];
  let ctm: Matrix = [1, 0, 0, 1, 0, 0];
  let imageOps = 0;
  for (let i = 0; i < list.fnArray.length && !images.full(); i++) {
    const fn = list.fnArray[i];
    const args = list.argsArray[i] as unknown[] | null;
    if (fn === OPS.save) stack.push(ctm);
    else if (fn === OPS.restore) ctm = stack.pop() ?? ctm;
    else if (fn === OPS.transform) ctm = multiply(ctm, args as Matrix);
    else if (fn === OPS.paintFormXObjectBegin) {
      stack.push(ctm);
      if (Array.isArray(args?.[0])) ctm = multiply(ctm, args[0] as Matrix);
    } else if (fn === OPS.paintFormXObjectEnd) ctm = stack.pop() ?? ctm;
    else if (fn === OPS.paintImageXObject || fn === OPS.paintInlineImageXObject) {
      if (++imageOps > MAX_IMAGE_OPS_PER_PDF_PAGE) break;
      const raw = fn === OPS.paintInlineImageXObject ? (args?.[0] as RawPixels) : await imageObject(page, args);
      if (!raw || !isCaptionWorthy(raw)) continue;
      const placeholder = await images.addRaw(raw, { kind: 'figure', page: pageNo, label: `${name} page ${pageNo}` });
      if (!placeholder) continue;
      // The image fills the unit square under the matrix: its corners give its place on the page.
      const xs = [ctm[4], ctm[0] + ctm[4], ctm[2] + ctm[4], ctm[0] + ctm[2] + ctm[4]];
      const ys = [ctm[5], ctm[1] + ctm[5], ctm[3] + ctm[5], ctm[1] + ctm[3] + ctm[5]];
      placed.push({ placeholder, x: Math.min(...xs), bottom: Math.min(...ys) });
    }
  }
  return placed;
}

/**
 * Puts each figure among the text items, before the first item (in reading order) printed below it, so its
 * caption lands where the figure stood (before "Figure 1: …" under it); figures below all text go last.
 */
export function placeFigures(items: readonly PdfTextItem[], figures: readonly PlacedFigure[]): PdfTextItem[] {
  const out = [...items];
  // Inserted from the last figure back so earlier insert positions stay valid.
  const positioned = figures.map((figure) => {
    const at = items.findIndex((item) => (item.transform[5] ?? 0) < figure.bottom);
    return { figure, at: at === -1 ? items.length : at };
  });
  for (const { figure, at } of positioned.reverse()) {
    out.splice(at, 0, { str: figure.placeholder, transform: [1, 0, 0, 1, figure.x, figure.bottom], width: 0, height: 1 });
  }
  return out;
}

/** Renders a page without a text layer (a scan) at about SCAN_RENDER_LONG_SIDE_PX and adds it; returns its placeholder or ''. */
export async function collectScannedPage(page: PDFPageProxy, images: ImageCollector, pageNo: number): Promise<string> {
  if (images.full()) return images.leaveOut();
  const base = page.getViewport({ scale: 1 });
  const scale = Math.min(MAX_SCAN_SCALE, SCAN_RENDER_LONG_SIDE_PX / Math.max(base.width, base.height, 1));
  const viewport = page.getViewport({ scale });
  const { createCanvas } = await loadCanvas();
  const canvas = createCanvas(Math.max(1, Math.ceil(viewport.width)), Math.max(1, Math.ceil(viewport.height)));
  const context = canvas.getContext('2d');
  // Scans are often transparent where the paper is: white paper, as a reader sees it.
  context.fillStyle = '#ffffff';
  context.fillRect(0, 0, canvas.width, canvas.height);
  await page.render({ canvas: canvas as never, canvasContext: context as never, viewport }).promise;
  return images.addPrepared(await prepareCanvas(canvas, SCAN_RENDER_LONG_SIDE_PX), { kind: 'scan', page: pageNo });
}

/** The decoded image an XObject operation names (its declared size is checked first: tiny ones are not fetched). */
async function imageObject(page: PDFPageProxy, args: unknown[] | null): Promise<RawPixels | null> {
  const [id, width, height] = args ?? [];
  if (typeof id !== 'string' || !isCaptionWorthy({ width: Number(width), height: Number(height) })) return null;
  const objs = id.startsWith('g_') ? page.commonObjs : page.objs;
  return new Promise<RawPixels | null>((resolve) => {
    try {
      objs.get(id, (obj: unknown) => resolve(isRawPixels(obj) ? obj : null));
    } catch {
      resolve(null);
    }
  });
}

function isRawPixels(value: unknown): value is RawPixels {
  const v = value as Partial<RawPixels> | null;
  return !!v && typeof v.width === 'number' && typeof v.height === 'number' && typeof v.kind === 'number' && (v.data instanceof Uint8Array || v.data instanceof Uint8ClampedArray);
}

function multiply(m: Matrix, n: Matrix): Matrix {
  if (!Array.isArray(n) || n.length < 6) return m;
  return [
    n[0] * m[0] + n[1] * m[2],
    n[0] * m[1] + n[1] * m[3],
    n[2] * m[0] + n[3] * m[2],
    n[2] * m[1] + n[3] * m[3],
    n[4] * m[0] + n[5] * m[2] + m[4],
    n[4] * m[1] + n[5] * m[3] + m[5],
  ];
}

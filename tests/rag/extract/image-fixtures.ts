// Builds image fixtures in memory: PNGs with jimp (charts, text in a bundled bitmap font), PDFs with pdf-lib, a DOCX with a picture.
import { Jimp, loadFont } from 'jimp';
import { SANS_64_BLACK } from 'jimp/fonts';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { buildZip } from './fixture-builders.js';

/** A bar chart as a PNG: white ground, one coloured bar per value (heights in px), distinct bytes per `values`. */
export async function chartPng(values: number[], { width = 320, height = 200 } = {}): Promise<Buffer> {
  const image = new Jimp({ width, height, color: 0xffffffff });
  const barWidth = Math.floor(width / (values.length * 2));
  values.forEach((value, i) => {
    const x0 = barWidth * (2 * i + 1);
    const top = Math.max(0, height - value);
    for (let x = x0; x < x0 + barWidth; x++) for (let y = top; y < height; y++) image.setPixelColor(0x3366ccff + i * 0x10000000, x, y);
  });
  return image.getBuffer('image/png');
}

/** Black text on white, in jimp's bundled 64 px sans font (no system fonts needed), one line per entry. */
export async function textPng(lines: string[], { width = 1400 } = {}): Promise<Buffer> {
  const font = await loadFont(SANS_64_BLACK);
  const lineHeight = 90;
  const image = new Jimp({ width, height: 60 + lines.length * lineHeight, color: 0xffffffff });
  lines.forEach((text, i) => image.print({ font, x: 40, y: 30 + i * lineHeight, text }));
  return image.getBuffer('image/png');
}

/** A plain PNG of one colour (for size thresholds: icons, rules, huge images). */
export async function solidPng(width: number, height: number, color = 0x808080ff): Promise<Buffer> {
  return new Jimp({ width, height, color }).getBuffer('image/png');
}

/**
 * A two-page PDF: page 1 has text, an embedded chart (`chart`) between the intro and a "Figure 1" line under it;
 * page 2 is a scan: one page-wide image (`scan`) and no text layer.
 */
export async function reportPdf({ chart, scan, intro = 'Quarterly report of the Harbour Bakery.' }: { chart: Buffer; scan: Buffer; intro?: string }): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const first = doc.addPage([612, 792]);
  first.drawText(intro, { x: 72, y: 720, font, size: 14 });
  first.drawImage(await doc.embedPng(chart), { x: 72, y: 420, width: 320, height: 200 });
  first.drawText('Figure 1: loaves sold per quarter.', { x: 72, y: 400, font, size: 12 });
  const second = doc.addPage([612, 792]);
  const scanned = await doc.embedPng(scan);
  // The page image keeps its proportions, across the page's width from the top, as a scanner would place it.
  const height = (612 * scanned.height) / scanned.width;
  second.drawImage(scanned, { x: 0, y: 792 - height, width: 612, height });
  return Buffer.from(await doc.save());
}

/** A one-page PDF with `count` images of `side`×`side` px, laid out in a grid (for the many-tiny-images case). */
export async function manyImagesPdf(count: number, side: number): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([612, 792]);
  const font = await doc.embedFont(StandardFonts.Helvetica);
  page.drawText('A page of icons.', { x: 72, y: 760, font, size: 12 });
  // Distinct pixels each, so none is a repeat of another.
  for (let i = 0; i < count; i++) {
    const png = await new Jimp({ width: side, height: side, color: (0x100 + i * 0x1000) | 0xff }).getBuffer('image/png');
    page.drawImage(await doc.embedPng(png), { x: (i % 60) * 10, y: 20 + Math.floor(i / 60) * 8, width: 8, height: 6 });
  }
  return Buffer.from(await doc.save());
}

/** A Word document: a heading, a paragraph, a picture (`png`), and a closing paragraph. */
export function docxWithPicture(png: Buffer): Buffer {
  const w = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
  const r = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
  const wp = 'http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing';
  const a = 'http://schemas.openxmlformats.org/drawingml/2006/main';
  const pic = 'http://schemas.openxmlformats.org/drawingml/2006/picture';
  const drawing =
    `<w:drawing><wp:inline><wp:extent cx="3048000" cy="1905000"/><wp:docPr id="1" name="Chart"/>` +
    `<a:graphic><a:graphicData uri="${pic}"><pic:pic><pic:nvPicPr><pic:cNvPr id="1" name="chart.png"/><pic:cNvPicPr/></pic:nvPicPr>` +
    `<pic:blipFill><a:blip r:embed="rId2"/></pic:blipFill><pic:spPr/></pic:pic></a:graphicData></a:graphic></wp:inline></w:drawing>`;
  const body =
    `<w:p><w:pPr><w:pStyle w:val="Heading1"/></w:pPr><w:r><w:t>Mill report</w:t></w:r></w:p>` +
    `<w:p><w:r><w:t>Output of the mill by month:</w:t></w:r></w:p>` +
    `<w:p><w:r>${drawing}</w:r></w:p>` +
    `<w:p><w:r><w:t>End of report.</w:t></w:r></w:p>`;
  const relType = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
  return buildZip([
    {
      name: '[Content_Types].xml',
      text:
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>' +
        '<Default Extension="png" ContentType="image/png"/>' +
        '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>' +
        '<Override PartName="/word/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"/></Types>',
    },
    {
      name: '_rels/.rels',
      text: `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${relType}/officeDocument" Target="word/document.xml"/></Relationships>`,
    },
    {
      name: 'word/_rels/document.xml.rels',
      text:
        `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
        `<Relationship Id="rId1" Type="${relType}/styles" Target="styles.xml"/><Relationship Id="rId2" Type="${relType}/image" Target="media/image1.png"/></Relationships>`,
    },
    { name: 'word/styles.xml', text: `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:styles xmlns:w="${w}"><w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/></w:style></w:styles>` },
    {
      name: 'word/document.xml',
      text: `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="${w}" xmlns:r="${r}" xmlns:wp="${wp}" xmlns:a="${a}" xmlns:pic="${pic}"><w:body>${body}</w:body></w:document>`,
    },
    { name: 'word/media/image1.png', data: png },
  ]);
}

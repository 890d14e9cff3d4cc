// Tesseract OCR, the fallback when no vision model is set: a real run on images of text generated here.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExtractor } from '../../../src/rag/extract/index.js';
import { createTesseractCaptioner, findTesseract, textFromTsv } from '../../../src/rag/vision/tesseract-captioner.js';
import { chartPng, reportPdf, textPng } from '../extract/image-fixtures.js';
import { makeTempFolders, type TempFolders } from '../temp-folders.js';

let folders: TempFolders;
beforeAll(async () => {
  folders = await makeTempFolders();
});
afterAll(async () => {
  await folders.remove();
});

describe('findTesseract', () => {
  it('finds the tesseract installed by scripts/setup.sh, and reports none on an empty PATH', async () => {
    expect(await findTesseract()).toMatch(/\/tesseract$/);
    expect(await findTesseract({ PATH: '' })).toBeNull();
  });
});

describe('createTesseractCaptioner', () => {
  it('transcribes an image of text', async () => {
    const png = await textPng(['The kiln fires at 1280 degrees', 'every Tuesday morning']);
    const text = await createTesseractCaptioner().caption({ sha256: 'x', mimeType: 'image/png', data: png, width: 0, height: 0 }, { signal: AbortSignal.timeout(60_000) });
    expect(text.replace(/\s+/g, ' ')).toContain('The kiln fires at 1280 degrees every Tuesday morning');
  });

  it('finds no text in a chart without words', async () => {
    const text = await createTesseractCaptioner().caption({ sha256: 'x', mimeType: 'image/png', data: await chartPng([40, 150, 90]), width: 0, height: 0 }, { signal: AbortSignal.timeout(60_000) });
    expect(text).toBe('');
  });

  it('fails with the reason when the command is missing', async () => {
    const captioner = createTesseractCaptioner({ command: join(folders.root, 'no-tesseract') });
    await expect(captioner.caption({ sha256: 'x', mimeType: 'image/png', data: await textPng(['x']), width: 0, height: 0 }, { signal: AbortSignal.timeout(5_000) })).rejects.toThrow(
      /^tesseract: .*ENOENT/,
    );
  });
});

describe('textFromTsv', () => {
  it('keeps confident words, one line per line and a blank line between paragraphs', () => {
    const header = 'level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext';
    const word = (block: number, par: number, line: number, conf: number, text: string) => `5\t1\t${block}\t${par}\t${line}\t1\t0\t0\t1\t1\t${conf}\t${text}`;
    const tsv = [header, word(1, 1, 1, 96, 'Harbour'), word(1, 1, 1, 91, 'Bakery'), word(1, 1, 2, 88, 'ledger'), word(1, 1, 2, 12, '~%'), word(2, 1, 1, 90, 'Page'), word(2, 1, 1, 93, 'two')].join('\n');
    expect(textFromTsv(tsv)).toBe('Harbour Bakery\nledger\n\nPage two');
  });
});

describe('createExtractor with Tesseract', () => {
  it('transcribes the scanned page of a PDF in place of its missing text layer', async () => {
    await writeFile(
      join(folders.documentsDir, 'scan.pdf'),
      await reportPdf({ chart: await chartPng([30, 60, 90]), scan: await textPng(['Invoice 4471', 'Total due 96 euros']) }),
    );
    const extractor = createExtractor({ documentsDir: folders.documentsDir, images: { captioner: createTesseractCaptioner() } });
    try {
      const result = await extractor.extract('scan.pdf', { timeoutMs: 30_000 });
      expect(result.ok && result.pages.map((p) => p.page)).toEqual([1, 2]);
      const scanned = result.ok ? result.pages[1]!.text.replace(/\s+/g, ' ') : '';
      expect(scanned).toContain('Invoice 4471 Total due 96 euros');
    } finally {
      await extractor.close();
    }
  });
});

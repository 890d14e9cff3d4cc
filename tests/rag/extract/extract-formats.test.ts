// Extraction of each supported format, from the shipped fixtures and from files built in the test.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../../src/paths.js';
import { createExtractor, type WorkerExtractor } from '../../../src/rag/extract/index.js';
import type { ExtractionResult } from '../../../src/rag/types.js';
import { buildPdf } from './fixture-builders.js';

const FIXTURES = join(PROJECT_ROOT, 'tests/fixtures/docs');

function textOf(result: ExtractionResult): string {
  if (!result.ok) throw new Error(`expected text, got ${result.reason}: ${result.message}`);
  return result.pages.map((p) => p.text).join('\n');
}

describe('createExtractor: shipped fixtures', () => {
  let extractor: WorkerExtractor;
  beforeAll(() => {
    extractor = createExtractor({ documentsDir: FIXTURES });
  });
  afterAll(() => extractor.close());

  it('extracts a 2-page PDF with its page numbers and metadata title', async () => {
    const result = await extractor.extract('two-pages.pdf');
    expect(result).toMatchObject({ ok: true, format: 'pdf', title: 'Lighthouse Maintenance Log', warnings: [] });
    if (!result.ok) return;
    expect(result.pages.map((p) => p.page)).toEqual([1, 2]);
    expect(result.pages[0]?.text).toBe('Lighthouse Maintenance Log\nThe lens at Cape Verity was cleaned on 3 March.\nKeeper: Ada Lindqvist');
    expect(result.pages[1]?.text).toContain('fog horn compressor was replaced');
  });

  it('turns an HTML page into Markdown of its article, keeping the title and dropping navigation', async () => {
    const result = await extractor.extract('article.html');
    // Readability drops the " | Site name" suffix of the <title>.
    expect(result).toMatchObject({ ok: true, format: 'html', title: 'Night Trains Return to the Alps' });
    const text = textOf(result);
    expect(text).toContain('## Why now');
    expect(text).toContain('carrying 312 passengers');
    expect(text).toContain('[The full report](https://example.invalid/report)');
    expect(text).toContain('A blue sleeper train in the snow');
    expect(text).not.toContain('About us');
  });

  it('runs no script of the page: inline, in the head, or in an onload handler', async () => {
    const result = await extractor.extract('article.html');
    const text = textOf(result);
    expect(text).toContain('A sleeper service between Zurich and Vienna');
    expect(text).not.toContain('SCRIPT RAN');
    expect(text).not.toContain('ONLOAD RAN');
    expect(result.ok && result.title).not.toContain('SCRIPT RAN');
  });

  it('keeps Markdown as it is and takes its first heading as the title', async () => {
    const result = await extractor.extract('notes.md');
    expect(result).toMatchObject({ ok: true, format: 'md', title: 'Beekeeping Notes' });
    expect(textOf(result)).toContain('- Hive 4 needs a new super');
  });

  it('reads txt and csv as text', async () => {
    expect(textOf(await extractor.extract('tides.txt'))).toBe('Plain text about tide tables.\nHigh water at 06:42, low water at 12:55.');
    const csv = await extractor.extract('table.csv');
    expect(csv).toMatchObject({ ok: true, format: 'csv', title: null });
    expect(textOf(csv)).toContain('Tromso,Norway,77544');
  });

  it('pretty-prints JSON', async () => {
    const text = textOf(await extractor.extract('data.json'));
    expect(text).toContain('"station": "Halley VI"');
    expect(text).toContain('\n    "winter": 16,');
  });

  it('converts a DOCX to Markdown with headings', async () => {
    const result = await extractor.extract('report.docx');
    expect(result).toMatchObject({ ok: true, format: 'docx', title: 'Quarterly Orchard Report' });
    expect(textOf(result)).toBe(
      '# Quarterly Orchard Report\n\nThe pear harvest reached 42 tonnes, up from 35 last year.\n\n## Irrigation\n\nDrip lines were extended to the north field.',
    );
  });

  it('accepts an absolute path inside the folder', async () => {
    expect(textOf(await extractor.extract(join(FIXTURES, 'tides.txt')))).toContain('tide tables');
  });
});

describe('createExtractor: damaged and unusual files', () => {
  let dir: string;
  let extractor: WorkerExtractor;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'extract-formats-'));
    extractor = createExtractor({ documentsDir: dir });
  });
  afterAll(async () => {
    await extractor.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function extractFile(name: string, content: string | Buffer) {
    await writeFile(join(dir, name), content);
    return extractor.extract(name);
  }

  it('reports a PDF without any text layer as no_text and says it looks scanned', async () => {
    const result = await extractFile('scan.pdf', buildPdf({ pages: [null, null] }));
    expect(result).toMatchObject({ ok: false, reason: 'no_text' });
    expect(!result.ok && result.message).toMatch(/scanned/);
  });

  it('warns about the pages of a PDF that have no text and keeps the others', async () => {
    const result = await extractFile('mixed.pdf', buildPdf({ pages: [['Harbour dues are paid monthly by every moored vessel.'], null, ['Closing page of the harbour rules.']] }));
    expect(result.ok && result.pages.map((p) => p.page)).toEqual([1, 3]);
    expect(result.ok && result.warnings).toEqual([expect.stringMatching(/^Page 2 of mixed\.pdf has no text layer/)]);
  });

  it('reports a corrupt PDF as parse_error', async () => {
    const result = await extractFile('broken.pdf', buildPdf({ pages: [['x']] }).subarray(0, 120));
    expect(result).toMatchObject({ ok: false, reason: 'parse_error' });
  });

  it('reports a password-protected PDF as parse_error saying so', async () => {
    const result = await extractFile('locked.pdf', buildPdf({ pages: [['secret']], encrypted: true }));
    expect(result).toMatchObject({ ok: false, reason: 'parse_error' });
    expect(!result.ok && result.message).toMatch(/password-protected/);
  });

  it('reports a file that is not a DOCX inside as parse_error', async () => {
    expect(await extractFile('fake.docx', 'not a zip archive')).toMatchObject({ ok: false, reason: 'parse_error' });
  });

  it('drops a UTF-8 byte order mark and decodes UTF-16 with its mark', async () => {
    expect(textOf(await extractFile('bom.txt', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('café au lait')])))).toBe('café au lait');
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('naïve tea', 'utf16le')]);
    expect(textOf(await extractFile('utf16.txt', utf16))).toBe('naïve tea');
  });

  it('refuses a binary file named .txt', async () => {
    const result = await extractFile('image.txt', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]));
    expect(result).toMatchObject({ ok: false, reason: 'unsupported' });
    expect(!result.ok && result.message).toMatch(/binary/);
  });

  it('reports an empty text file as no_text', async () => {
    expect(await extractFile('empty.md', '  \n')).toMatchObject({ ok: false, reason: 'no_text' });
  });

  it('keeps invalid JSON as text with a warning', async () => {
    const result = await extractFile('bad.json', '{"unclosed": ');
    expect(textOf(result)).toBe('{"unclosed":');
    expect(result.ok && result.warnings[0]).toMatch(/not valid JSON/);
  });

  it('reports an unsupported extension as unsupported', async () => {
    expect(await extractFile('photo.jpeg', 'whatever')).toMatchObject({ ok: false, reason: 'unsupported' });
  });

  it('cuts text at maxTextChars with a warning', async () => {
    await writeFile(join(dir, 'long.txt'), 'abcdefghij'.repeat(50));
    const cut = await extractor.extract('long.txt', { maxTextChars: 120 });
    expect(textOf(cut)).toHaveLength(120);
    expect(cut.ok && cut.warnings[0]).toMatch(/cut at 120 characters/);
  });
});

// Images and scans through the real extractor (worker thread) and real LLM clients against the fake Ollama and Gemini servers.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createGeminiClient } from '../../../src/llm/gemini-client.js';
import { createOllamaClient } from '../../../src/llm/ollama-client.js';
import { createExtractor, type WorkerExtractor } from '../../../src/rag/extract/index.js';
import type { ExtractionResult } from '../../../src/rag/types.js';
import { CAPTION_CACHE_FILE } from '../../../src/rag/vision/caption-cache.js';
import { MAX_CAPTION_CHARS } from '../../../src/rag/vision/image-limits.js';
import { readImageSize } from '../../../src/rag/vision/image-size.js';
import { createVisionCaptioner, readCaptionPrompt } from '../../../src/rag/vision/vision-captioner.js';
import { geminiTextReply, geminiVisionRequest, startFakeGeminiServer } from '../../helpers/fake-gemini-server.js';
import { generateCalls, ollamaChatReply, ollamaVisionRequest, startFakeOllamaServer, type FakeLlmServer, type FakeReply, type VisionRequest } from '../../helpers/fake-ollama-server.js';
import { makeTempFolders, type TempFolders } from '../temp-folders.js';
import { chartPng, docxWithPicture, manyImagesPdf, reportPdf, solidPng, textPng } from './image-fixtures.js';

const CHART_CAPTION = 'Bar chart: the Harbour Bakery sold 4,812 loaves in the third quarter.';
const SCAN_TEXT = 'Ledger note: the bread oven was serviced on 12 March by Ferro and Sons.';
const SHARED_LIMITS = { timeoutMs: 20_000 };

/** Answers a vision request from the size of the image it carries: charts are 320 px wide, scans 2,100 px tall. */
function describeImage(vision: VisionRequest): string {
  const size = readImageSize(vision.images[0]!.data);
  if (size?.height === 2_100) return SCAN_TEXT;
  if (size?.width === 320) return CHART_CAPTION;
  return 'A picture.';
}

function ollamaVision(answer: (vision: VisionRequest) => FakeReply | undefined = (v) => ollamaChatReply(describeImage(v))) {
  return startFakeOllamaServer({ replies: (req) => { const v = ollamaVisionRequest(req); return v ? answer(v) : undefined; } });
}

function ollamaCaptioner(url: string, timeoutMs = 10_000) {
  return createVisionCaptioner(createOllamaClient({ type: 'ollama', model: 'llava:7b', base_url: url, timeout_ms: timeoutMs, max_retries: 0 }, {}));
}

function textOf(result: ExtractionResult): string {
  return result.ok ? result.pages.map((p) => p.text).join('\n\n') : '';
}

let folders: TempFolders;
let chart: Buffer;
let server: FakeLlmServer | undefined;
let extractor: WorkerExtractor | undefined;

beforeAll(async () => {
  folders = await makeTempFolders();
  chart = await chartPng([60, 120, 180]);
  await writeFile(join(folders.documentsDir, 'chart.png'), chart);
  await writeFile(join(folders.documentsDir, 'report.pdf'), await reportPdf({ chart: await chartPng([50, 90, 170]), scan: await textPng(['Ledger note']) }));
});
afterEach(async () => {
  await extractor?.close();
  await server?.close();
  extractor = undefined;
  server = undefined;
});
afterAll(async () => {
  await folders.remove();
});

describe('createExtractor with a vision model (Ollama)', () => {
  it('captions an image file, sending its bytes and the original caption instruction', async () => {
    server = await ollamaVision();
    extractor = createExtractor({ documentsDir: folders.documentsDir, images: { captioner: ollamaCaptioner(server.url) } });
    const result = await extractor.extract('chart.png', SHARED_LIMITS);
    expect(result).toMatchObject({ ok: true, format: 'image', pages: [{ page: 1, text: CHART_CAPTION }] });
    const [request] = server.requests.map(ollamaVisionRequest).filter((v) => v !== undefined);
    expect(request!.images).toHaveLength(1);
    expect(request!.images[0]!.data.equals(chart)).toBe(true);
    expect(request!.prompt).toBe(readCaptionPrompt());
    expect(request!.prompt).toMatch(/^If there is lot of text in the image, then ONLY reply back with exact text in the image/);
  });

  it("puts a PDF figure's caption where it stood and transcribes a scanned page, keeping page numbers", async () => {
    server = await ollamaVision();
    extractor = createExtractor({ documentsDir: folders.documentsDir, images: { captioner: ollamaCaptioner(server.url) } });
    const result = await extractor.extract('report.pdf', SHARED_LIMITS);
    expect(result.ok).toBe(true);
    const pages = result.ok ? result.pages : [];
    expect(pages.map((p) => p.page)).toEqual([1, 2]);
    expect(pages[0]!.text.split('\n\n')).toEqual(['Quarterly report of the Harbour Bakery.', `[Image: ${CHART_CAPTION}]`, 'Figure 1: loaves sold per quarter.']);
    expect(pages[1]!.text).toBe(SCAN_TEXT);
    const sent = server.requests.map(ollamaVisionRequest).filter((v) => v !== undefined);
    expect(sent.map((v) => readImageSize(v.images[0]!.data))).toEqual([
      { width: 320, height: 200 },
      { width: 1623, height: 2100 },
    ]);
  });

  it('captions a DOCX picture and an HTML data: image in place, and never fetches a remote <img>', async () => {
    server = await ollamaVision();
    const fetched: string[] = [];
    await writeFile(join(folders.documentsDir, 'mill.docx'), docxWithPicture(chart));
    await folders.write(
      'page.html',
      `<html><head><title>Bakery news</title></head><body><article><h1>Bakery news</h1><p>This season the bakery grew again, and the chart below shows how much.</p>` +
        `<img src="data:image/png;base64,${chart.toString('base64')}" alt="chart"><img src="http://192.0.2.7/remote.png" alt="remote logo">` +
        `<p>More loaves were sold than in any year before; the new oven made the difference.</p></article></body></html>`,
    );
    extractor = createExtractor({
      documentsDir: folders.documentsDir,
      images: { captioner: ollamaCaptioner(server.url) },
      fetchUrl: async (url) => {
        fetched.push(url);
        throw new Error('no network in tests');
      },
    });
    const docx = await extractor.extract('mill.docx', SHARED_LIMITS);
    expect(textOf(docx).split('\n\n')).toEqual(['# Mill report', 'Output of the mill by month:', `[Image: ${CHART_CAPTION}]`, 'End of report.']);
    const html = await extractor.extract('page.html', SHARED_LIMITS);
    expect(textOf(html)).toContain(`[Image: ${CHART_CAPTION}]`);
    expect(textOf(html)).toContain('remote logo');
    expect(fetched).toEqual([]);
  });

  it('captions image files an HTML page shows from beside it, never one outside the documents folder', async () => {
    server = await ollamaVision();
    await folders.write('site/figures/chart one.png', '');
    await writeFile(join(folders.documentsDir, 'site/figures/chart one.png'), chart);
    await writeFile(join(folders.root, 'outside.png'), await chartPng([5, 200, 5]));
    await folders.write(
      'site/index.html',
      `<html><head><title>Bakery site</title></head><body><article><h1>Bakery site</h1><p>Our sales this year, drawn by our accountant for the annual meeting.</p>` +
        `<img src="figures/chart%20one.png?v=2" alt="sales chart"><img src="../../outside.png" alt="outside picture"><img src="/etc/hosts.png" alt="rooted">` +
        `<p>Thank you to every customer who came by the harbour this year.</p></article></body></html>`,
    );
    extractor = createExtractor({ documentsDir: folders.documentsDir, images: { captioner: ollamaCaptioner(server.url) } });
    const text = textOf(await extractor.extract('site/index.html', SHARED_LIMITS));
    expect(text).toContain(`[Image: ${CHART_CAPTION}]`);
    expect(text).toContain('rooted');
    expect(text).not.toContain('⟦');
    const sent = server.requests.map(ollamaVisionRequest).filter((v) => v !== undefined);
    expect(sent.map((v) => v.images[0]!.data.equals(chart))).toEqual([true]);
  });

  it('asks once per image: a second extractor over the same cache asks the model nothing', async () => {
    server = await ollamaVision();
    extractor = createExtractor({ documentsDir: folders.documentsDir, images: { captioner: ollamaCaptioner(server.url), cacheDir: folders.indexDir } });
    expect(textOf(await extractor.extract('chart.png', SHARED_LIMITS))).toBe(CHART_CAPTION);
    expect(textOf(await extractor.extract('report.pdf', SHARED_LIMITS))).toContain(SCAN_TEXT);
    const asked = generateCalls(server).length;
    expect(asked).toBe(3);
    await extractor.close();
    const cache = JSON.parse(await readFile(join(folders.indexDir, CAPTION_CACHE_FILE), 'utf8'));
    expect(Object.keys(cache.captions['ollama:llava:7b'])).toHaveLength(3);

    extractor = createExtractor({ documentsDir: folders.documentsDir, images: { captioner: ollamaCaptioner(server.url), cacheDir: folders.indexDir } });
    expect(textOf(await extractor.extract('report.pdf', SHARED_LIMITS))).toContain(CHART_CAPTION);
    expect(textOf(await extractor.extract('chart.png', SHARED_LIMITS))).toBe(CHART_CAPTION);
    expect(generateCalls(server).length).toBe(asked);
  });
});

describe('createExtractor: image formats', () => {
  it('decodes a WebP photo and sends it re-encoded, downscaled to 1,600 px', async () => {
    server = await ollamaVision((v) => ollamaChatReply(JSON.stringify(readImageSize(v.images[0]!.data))));
    const { createCanvas } = await import('@napi-rs/canvas');
    const canvas = createCanvas(2_400, 1_200);
    const ctx = canvas.getContext('2d');
    ctx.fillStyle = '#2a6';
    ctx.fillRect(0, 0, 1_200, 1_200);
    await writeFile(join(folders.documentsDir, 'field.webp'), await canvas.encode('webp', 80));
    extractor = createExtractor({ documentsDir: folders.documentsDir, images: { captioner: ollamaCaptioner(server.url) } });
    expect(textOf(await extractor.extract('field.webp', SHARED_LIMITS))).toBe('{"width":1600,"height":800}');
  });
});

describe('createExtractor with a vision model (Gemini)', () => {
  it('sends the image as inline data with the instruction and uses the answer', async () => {
    server = await startFakeGeminiServer({ replies: (req) => (geminiVisionRequest(req) ? geminiTextReply(CHART_CAPTION) : undefined) });
    const client = createGeminiClient({ type: 'gemini', model: 'gemini-2.0-flash', base_url: server.url, timeout_ms: 10_000, max_retries: 0 }, { GEMINI_API_KEY: 'test-key' });
    extractor = createExtractor({ documentsDir: folders.documentsDir, images: { captioner: createVisionCaptioner(client) } });
    expect(textOf(await extractor.extract('chart.png', SHARED_LIMITS))).toBe(CHART_CAPTION);
    const vision = geminiVisionRequest(generateCalls(server)[0]!)!;
    expect(vision.prompt).toBe(readCaptionPrompt());
    expect(vision.images).toEqual([{ mimeType: 'image/png', data: chart }]);
  });
});

describe('createExtractor: images it cannot or should not caption', () => {
  it('without a captioner, refuses an image file and a scanned PDF with one sentence each saying how to read them', async () => {
    extractor = createExtractor({ documentsDir: folders.documentsDir });
    const image = await extractor.extract('chart.png', SHARED_LIMITS);
    expect(image).toMatchObject({ ok: false, reason: 'unsupported' });
    expect(!image.ok && image.message).toMatch(/chart\.png is an image and no vision model \(profiles\.yaml llm\.vision\) or Tesseract/);
    const pdf = await extractor.extract('report.pdf', SHARED_LIMITS);
    expect(pdf.ok && pdf.warnings).toEqual(['Page 2 of report.pdf has no text layer (scanned or image-only).']);
    expect(textOf(pdf)).toBe('Quarterly report of the Harbour Bakery.\n\nFigure 1: loaves sold per quarter.');
  });

  it('skips icons, corrupt images and a 50-megapixel image with a warning, asking the model nothing', async () => {
    server = await ollamaVision();
    await writeFile(join(folders.documentsDir, 'icon.png'), await solidPng(64, 64));
    await writeFile(join(folders.documentsDir, 'rule.png'), await solidPng(1200, 3));
    await writeFile(join(folders.documentsDir, 'corrupt.png'), Buffer.concat([chart.subarray(0, 40), Buffer.alloc(400, 7)]));
    // A PNG header declaring 8,660 × 5,774 (50 megapixels) over a few bytes: a decompression bomb is refused from its header.
    const bomb = Buffer.from(chart);
    bomb.writeUInt32BE(8_660, 16);
    bomb.writeUInt32BE(5_774, 20);
    await writeFile(join(folders.documentsDir, 'bomb.png'), bomb);
    extractor = createExtractor({ documentsDir: folders.documentsDir, images: { captioner: ollamaCaptioner(server.url) } });
    expect(await extractor.extract('icon.png', SHARED_LIMITS)).toMatchObject({ ok: false, reason: 'no_text', message: expect.stringMatching(/too small/) });
    expect(await extractor.extract('rule.png', SHARED_LIMITS)).toMatchObject({ ok: false, reason: 'no_text' });
    expect(await extractor.extract('corrupt.png', SHARED_LIMITS)).toMatchObject({ ok: false, reason: 'parse_error', message: expect.stringMatching(/could not be read/) });
    expect(await extractor.extract('bomb.png', SHARED_LIMITS)).toMatchObject({ ok: false, message: expect.stringMatching(/50 megapixels, over the 25 megapixel limit/) });
    expect(server.requests).toEqual([]);
  });

  it('indexes the text of a PDF with 5,000 tiny images and asks the model nothing', async () => {
    server = await ollamaVision();
    await writeFile(join(folders.documentsDir, 'icons.pdf'), await manyImagesPdf(5_000, 6));
    extractor = createExtractor({ documentsDir: folders.documentsDir, images: { captioner: ollamaCaptioner(server.url) } });
    const result = await extractor.extract('icons.pdf', SHARED_LIMITS);
    expect(textOf(result)).toBe('A page of icons.');
    expect(server.requests).toEqual([]);
  });

  it('keeps the text when the model never answers, warns, and caches nothing', async () => {
    server = await ollamaVision(() => ({ hang: true }));
    extractor = createExtractor({ documentsDir: folders.documentsDir, images: { captioner: ollamaCaptioner(server.url, 1_000), cacheDir: join(folders.root, 'hang-cache') } });
    const result = await extractor.extract('report.pdf', SHARED_LIMITS);
    expect(textOf(result)).toBe('Quarterly report of the Harbour Bakery.\n\nFigure 1: loaves sold per quarter.');
    expect(result.ok && result.warnings.join(' ')).toMatch(/2 image\(s\) of report\.pdf could not be captioned by ollama:llava:7b/);
    await expect(readFile(join(folders.root, 'hang-cache', CAPTION_CACHE_FILE))).rejects.toThrow(/ENOENT/);
  });

  it('stops asking after three failures in a row and keeps the text', async () => {
    server = await ollamaVision(() => ({ status: 500, body: { error: 'model crashed' } }));
    const charts = await Promise.all([10, 20, 30, 40, 50].map((h) => chartPng([h, 100, 150])));
    await folders.write(
      'gallery.html',
      `<html><head><title>Gallery</title></head><body><article><h1>Gallery</h1><p>Five charts of the bakery's year, one for each of its shops by the harbour.</p>` +
        charts.map((png) => `<img src="data:image/png;base64,${png.toString('base64')}">`).join('') +
        `<p>Every shop sold more bread this year than last.</p></article></body></html>`,
    );
    extractor = createExtractor({ documentsDir: folders.documentsDir, images: { captioner: ollamaCaptioner(server.url) } });
    const result = await extractor.extract('gallery.html', SHARED_LIMITS);
    expect(textOf(result)).toContain('Every shop sold more bread this year than last.');
    expect(generateCalls(server)).toHaveLength(3);
    expect(result.ok && result.warnings).toEqual([
      expect.stringMatching(/^3 image\(s\) of gallery\.html could not be captioned by ollama:llava:7b \(an image on page 1: ollama: HTTP 500/),
      '2 more image(s) of gallery.html were not sent to ollama:llava:7b after 3 failures in a row.',
    ]);
  });

  it('stops captioning a file when its captioning time runs out, keeping what it has', async () => {
    server = await ollamaVision(() => ({ hang: true }));
    extractor = createExtractor({ documentsDir: folders.documentsDir, images: { captioner: ollamaCaptioner(server.url), budgetMs: 300 } });
    const result = await extractor.extract('chart.png', SHARED_LIMITS);
    expect(result).toMatchObject({ ok: false, reason: 'no_text', message: expect.stringMatching(/not captioned: the time for captioning one file ran out/) });
  });

  it('does not cache an empty caption, and cuts a 1 MB caption without caching it', async () => {
    const answers = ['', 'x'.repeat(2 ** 20)];
    server = await ollamaVision(() => ollamaChatReply(answers.shift() ?? CHART_CAPTION));
    const cacheDir = join(folders.root, 'odd-cache');
    extractor = createExtractor({ documentsDir: folders.documentsDir, images: { captioner: ollamaCaptioner(server.url), cacheDir } });
    const empty = await extractor.extract('chart.png', SHARED_LIMITS);
    expect(empty).toMatchObject({ ok: false, reason: 'no_text', message: 'ollama:llava:7b found no text in 1 image(s) of chart.png.' });
    const long = await extractor.extract('chart.png', SHARED_LIMITS);
    expect(textOf(long)).toHaveLength(MAX_CAPTION_CHARS);
    expect(long.ok && long.warnings).toEqual([`ollama:llava:7b answered more than 8,000 characters for 1 image(s) of chart.png; the caption was cut.`]);
    expect(textOf(await extractor.extract('chart.png', SHARED_LIMITS))).toBe(CHART_CAPTION);
    expect(generateCalls(server)).toHaveLength(3);
    const cache = JSON.parse(await readFile(join(cacheDir, CAPTION_CACHE_FILE), 'utf8'));
    expect(Object.values(cache.captions['ollama:llava:7b'])).toEqual([CHART_CAPTION]);
  });
});

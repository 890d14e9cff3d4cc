// Benchmark: reading images — ms per captioned image (vision model on a local fake Ollama), Tesseract ms per scanned page, hostile images' time and peak memory.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCanvas } from '@napi-rs/canvas';
import { Jimp, loadFont } from 'jimp';
import { SANS_64_BLACK } from 'jimp/fonts';
import { PDFDocument } from 'pdf-lib';
import { createOllamaClient } from '../src/llm/ollama-client.js';
import { createExtractor } from '../src/rag/extract/create-extractor.js';
import type { ImageCaptioner } from '../src/rag/vision/image-captioner.js';
import { createTesseractCaptioner, findTesseract } from '../src/rag/vision/tesseract-captioner.js';
import { createVisionCaptioner } from '../src/rag/vision/vision-captioner.js';
import { median, round, type Figure } from './stats.js';

/** Distinct images captioned (each once: no cache). */
const CAPTIONED_IMAGES = 9;
/** Scanned pages transcribed by Tesseract. */
const SCANNED_PAGES = 5;
/** RSS sampling period while a hostile case runs. */
const RSS_SAMPLE_MS = 20;
/** Captioning budget for the hanging-model case (the default is 10 minutes). */
const HANG_BUDGET_MS = 2_000;

type Mode = 'caption' | 'hang' | 'flood';

/** A local HTTP server answering Ollama's /api/chat: a caption, never, or 1 MB of text. */
async function fakeOllama(mode: () => Mode): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const m = mode();
      if (m === 'hang') return;
      const content = m === 'flood' ? 'the same words again '.repeat(50_000) : 'Bar chart: loaves sold per quarter, peaking at 4,812.';
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ model: 'llava', created_at: new Date(0).toISOString(), message: { role: 'assistant', content }, done: true, eval_count: 1, prompt_eval_count: 1 }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => { server.close(() => resolve()); server.closeAllConnections(); }),
  };
}

async function chart(seed: number): Promise<Buffer> {
  const image = new Jimp({ width: 640, height: 400, color: 0xffffffff });
  for (let bar = 0; bar < 4; bar++) {
    const height = 60 + ((seed * 37 + bar * 71) % 300);
    for (let x = 60 + bar * 140; x < 140 + bar * 140; x++) for (let y = 400 - height; y < 400; y++) image.setPixelColor(0x3366ccff, x, y);
  }
  return image.getBuffer('image/png');
}

async function scannedPdf(pages: number): Promise<Buffer> {
  const font = await loadFont(SANS_64_BLACK);
  const doc = await PDFDocument.create();
  for (let p = 0; p < pages; p++) {
    const image = new Jimp({ width: 1700, height: 2200, color: 0xffffffff });
    for (let line = 0; line < 14; line++) image.print({ font, x: 100, y: 100 + line * 140, text: `Page ${p + 1} line ${line + 1}: the tide rose early` });
    const png = await doc.embedPng(await image.getBuffer('image/png'));
    doc.addPage([612, 792]).drawImage(png, { x: 0, y: 0, width: 612, height: 792 });
  }
  return Buffer.from(await doc.save());
}

async function tinyImagesPdf(count: number): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([612, 792]);
  for (let i = 0; i < count; i++) {
    const png = await new Jimp({ width: 6, height: 6, color: (0x100 + i * 0x1000) | 0xff }).getBuffer('image/png');
    page.drawImage(await doc.embedPng(png), { x: (i % 60) * 10, y: 20 + Math.floor(i / 60) * 8, width: 8, height: 6 });
  }
  return Buffer.from(await doc.save());
}

/** Runs `fn`, sampling this process's RSS (the parse worker is a thread of it); returns ms and the peak RSS growth in MB. */
async function measured(fn: () => Promise<unknown>): Promise<{ ms: number; peakMb: number }> {
  const base = process.memoryUsage().rss;
  let peak = base;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), RSS_SAMPLE_MS);
  const started = performance.now();
  await fn();
  const ms = performance.now() - started;
  clearInterval(timer);
  peak = Math.max(peak, process.memoryUsage().rss);
  return { ms, peakMb: (peak - base) / 2 ** 20 };
}

export async function runImagesBench(): Promise<Figure[]> {
  const figures: Figure[] = [];
  const dir = await mkdtemp(join(tmpdir(), 'cortex-bench-images-'));
  let mode: Mode = 'caption';
  const ollama = await fakeOllama(() => mode);
  const vision = (budgetMs?: number) =>
    createExtractor({
      documentsDir: dir,
      images: {
        captioner: createVisionCaptioner(createOllamaClient({ type: 'ollama', model: 'llava', base_url: ollama.url, timeout_ms: 60_000, max_retries: 0 }, {})),
        ...(budgetMs ? { budgetMs } : {}),
      },
    });
  try {
    // 1. Captioned image files, each distinct (no cache), through the worker and the real Ollama client.
    for (let i = 0; i <= CAPTIONED_IMAGES; i++) await writeFile(join(dir, `chart-${i}.png`), await chart(i));
    let extractor = vision();
    await extractor.extract('chart-0.png');
    const times: number[] = [];
    for (let i = 1; i <= CAPTIONED_IMAGES; i++) {
      const started = performance.now();
      const result = await extractor.extract(`chart-${i}.png`);
      if (!result.ok) throw new Error(`chart-${i}.png: ${result.message}`);
      times.push(performance.now() - started);
    }
    await extractor.close();
    figures.push({ bench: 'images', name: 'ms per captioned image file (640×400 PNG, fake Ollama, no cache)', value: round(median(times)), unit: 'ms', runs: CAPTIONED_IMAGES });

    // 2. Tesseract on scanned pages (rendered at 2,100 px, one OCR thread).
    const tesseract = await findTesseract();
    if (tesseract) {
      await writeFile(join(dir, 'scan.pdf'), await scannedPdf(SCANNED_PAGES));
      const ocr: ImageCaptioner = createTesseractCaptioner({ command: tesseract });
      extractor = createExtractor({ documentsDir: dir, images: { captioner: ocr } });
      const { ms } = await measured(async () => {
        const result = await extractor.extract('scan.pdf', { timeoutMs: 120_000 });
        if (!result.ok || result.pages.length !== SCANNED_PAGES) throw new Error(`scan.pdf: ${result.ok ? `${result.pages.length} pages` : result.message}`);
      });
      await extractor.close();
      figures.push({ bench: 'images', name: 'Tesseract ms per scanned PDF page (render + OCR)', value: round(ms / SCANNED_PAGES), unit: 'ms', runs: SCANNED_PAGES });
    }

    // 3. Hostile images: each skipped or cut with a warning; time and peak RSS growth.
    const big = createCanvas(8_660, 5_774);
    const ctx = big.getContext('2d');
    ctx.fillStyle = '#48a';
    ctx.fillRect(0, 0, 8_660, 5_774);
    await writeFile(join(dir, 'photo-50mp.jpg'), await big.encode('jpeg', 80));
    const near = createCanvas(6_000, 4_000);
    near.getContext('2d').fillRect(0, 0, 3_000, 3_000);
    await writeFile(join(dir, 'photo-24mp.jpg'), await near.encode('jpeg', 80));
    const png = await chart(99);
    await writeFile(join(dir, 'corrupt.png'), Buffer.concat([png.subarray(0, 60), Buffer.alloc(2_000, 7)]));
    await writeFile(join(dir, 'icons.pdf'), await tinyImagesPdf(5_000));
    await writeFile(join(dir, 'hang.png'), await chart(100));
    await writeFile(join(dir, 'flood.png'), await chart(101));
    const cases: Array<[string, string, Mode, number | undefined]> = [
      ['50-megapixel JPEG (skipped from its header)', 'photo-50mp.jpg', 'caption', undefined],
      ['24-megapixel JPEG (decoded, downscaled, captioned)', 'photo-24mp.jpg', 'caption', undefined],
      ['corrupt PNG (skipped)', 'corrupt.png', 'caption', undefined],
      ['PDF with 5,000 tiny images (text kept, none captioned)', 'icons.pdf', 'caption', undefined],
      [`vision model that never answers (${HANG_BUDGET_MS / 1000} s captioning budget)`, 'hang.png', 'hang', HANG_BUDGET_MS],
      ['vision model answering 1 MB (cut at 8,000 characters)', 'flood.png', 'flood', undefined],
    ];
    for (const [label, file, m, budget] of cases) {
      mode = m;
      extractor = vision(budget);
      const { ms, peakMb } = await measured(() => extractor.extract(file, { timeoutMs: 60_000 }));
      await extractor.close();
      figures.push({ bench: 'images', name: `${label}: time`, value: round(ms), unit: 'ms' });
      figures.push({ bench: 'images', name: `${label}: peak RSS growth`, value: round(peakMb, 1), unit: 'MB' });
    }
  } finally {
    await ollama.close();
    await rm(dir, { recursive: true, force: true });
  }
  return figures;
}

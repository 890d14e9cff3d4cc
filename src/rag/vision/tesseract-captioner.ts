// Transcribes images with the Tesseract OCR command (Debian's tesseract-ocr), the fallback when no vision model is set.
import { execFile } from 'node:child_process';
import { access, constants } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { errorMessage } from '../../errors.js';
import { CaptionError, type ImageCaptioner } from './image-captioner.js';
import { TESSERACT_TIMEOUT_MS } from './image-limits.js';

/** Output read from one Tesseract run (its TSV of a dense page is ~100 KB). */
const TESSERACT_MAX_OUTPUT_BYTES = 4 * 2 ** 20;
/** Words Tesseract is less sure of than this (0–100) are dropped: on photos and charts they are noise. */
const MIN_WORD_CONFIDENCE = 60;
/** An image whose kept words have fewer letters or digits than this has no text worth indexing. */
const MIN_TEXT_CHARS = 4;

export interface TesseractOptions {
  /** The executable; default the `tesseract` found on PATH. */
  command?: string;
  /** Tesseract language(s), default eng. */
  language?: string;
  timeoutMs?: number;
}

/** Finds `tesseract` on PATH (an executable file), or null when it is not installed. Never throws. */
export async function findTesseract(env: NodeJS.ProcessEnv = process.env): Promise<string | null> {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, 'tesseract');
    try {
      await access(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not in this folder.
    }
  }
  return null;
}

/**
 * A captioner running `tesseract stdin stdout tsv` on each image: one thread (OMP_THREAD_LIMIT=1, the machine is
 * shared), killed at `timeoutMs` or when the file's deadline aborts it. Words under MIN_WORD_CONFIDENCE are
 * dropped and lines rebuilt from the TSV, so a photo yields '' rather than noise.
 */
export function createTesseractCaptioner({ command = 'tesseract', language = 'eng', timeoutMs = TESSERACT_TIMEOUT_MS }: TesseractOptions = {}): ImageCaptioner {
  const id = 'tesseract';
  return {
    id,
    caption(image, { signal }) {
      return new Promise<string>((resolve, reject) => {
        const child = execFile(
          command,
          ['stdin', 'stdout', '-l', language, 'tsv'],
          {
            encoding: 'utf8',
            timeout: timeoutMs,
            killSignal: 'SIGKILL',
            maxBuffer: TESSERACT_MAX_OUTPUT_BYTES,
            signal,
            env: { PATH: process.env.PATH ?? '', OMP_THREAD_LIMIT: '1', ...(process.env.TESSDATA_PREFIX ? { TESSDATA_PREFIX: process.env.TESSDATA_PREFIX } : {}) },
          },
          (err, stdout, stderr) => {
            if (err) {
              const why = (err as { killed?: boolean }).killed ? `no answer within ${timeoutMs / 1000} s` : stderr.trim().split('\n').pop() || errorMessage(err);
              reject(new CaptionError(id, why, { cause: err }));
              return;
            }
            resolve(textFromTsv(stdout));
          },
        );
        child.stdin?.on('error', () => undefined);
        child.stdin?.end(Buffer.from(image.data.buffer, image.data.byteOffset, image.data.byteLength));
      });
    },
  };
}

/**
 * Rebuilds text from Tesseract's TSV (level, page, block, paragraph, line, word, left, top, width, height, conf,
 * text): confident words joined by spaces per line, a blank line between paragraphs.
 */
export function textFromTsv(tsv: string): string {
  const paragraphs: string[][] = [];
  let paragraphKey = '';
  let lineKey = '';
  for (const row of tsv.split('\n').slice(1)) {
    const cols = row.split('\t');
    if (cols.length < 12 || cols[0] !== '5') continue;
    const word = cols.slice(11).join('\t').trim();
    if (!word || Number(cols[10]) < MIN_WORD_CONFIDENCE) continue;
    const para = `${cols[1]}.${cols[2]}.${cols[3]}`;
    const line = `${para}.${cols[4]}`;
    if (para !== paragraphKey) {
      paragraphs.push([]);
      paragraphKey = para;
      lineKey = '';
    }
    const lines = paragraphs[paragraphs.length - 1]!;
    if (line !== lineKey) {
      lines.push(word);
      lineKey = line;
    } else {
      lines[lines.length - 1] += ` ${word}`;
    }
  }
  const text = paragraphs.map((lines) => lines.join('\n')).join('\n\n');
  return (text.match(/[\p{L}\p{N}]/gu)?.length ?? 0) >= MIN_TEXT_CHARS ? text : '';
}

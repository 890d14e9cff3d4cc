// Property: the text, Markdown, CSV, JSON and HTML parsers return an outcome (never throw) for any bytes, with output bounded by the input.
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { extractPageText } from '../../mcp-servers/websearch/page-text.js';
import { countHtmlElements, streamHtmlText } from '../../src/net/html-element-budget.js';
import { parseHtml } from '../../src/rag/extract/parse-html.js';
import { MAX_PRETTY_JSON_DEPTH, parseText } from '../../src/rag/extract/parse-text.js';
import { finishResult, tidyPageText, type ParseOutcome } from '../../src/rag/extract/parsed.js';
import { readUrlFile } from '../../src/rag/extract/url-file.js';
import { check, hostileText, RUNS, tallyLine } from './property-settings.js';

/** Bound: inputs of at most 300 tokens (~3 KB of text, 4 KB of bytes); outputs are bounded by the input as each property states. */
const MAX_TOKENS = 300;
const REASONS = new Set(['unsupported', 'too_large', 'timeout', 'parse_error', 'no_text', 'unsafe_path', 'fetch_error']);

const TEXT_TOKENS = [
  ')', ']', '"', '”', "'", '.', '!', '?', '…', '。', ' ', '  ', '\n', '\n\n', '\r\n', '\t', '#', '# Title\n', '```\n', '~~~', ',', ';', '""', 'a,b,"c\nd"\n',
  '{', '}', '[', ']', ':', '"k":', '1e400', '-0', 'null', 'true', '\\u0000', '\\ud800', '\u0000', '\u0001', '\uFEFF', '\uFFFD', '\u202E', 'word', '😀',
];
const HTML_TOKENS = [
  '<p>', '</p>', '<div>', '</div>', '<span>', '<script>', '</script>', '<style>', '</style>', '<!--', '-->', '<![CDATA[', ']]>', '&amp;', '&#0;',
  '&#x110000;', '&nbsp;', '<table>', '<tr>', '<td>', '</table>', '<svg>', '<math>', '<title>', '</title>', '<meta charset="utf-16">', '<base href="file:///">',
  '<img src=x onerror=alert(1)>', '<a href="javascript:x">', '<template>', '<noscript>', '<br>', '<h1>', '</h1>', '<pre>', '<li>', 'text', ' ', '\n', '<', '>', '"', '=',
  '<html>', '<body>', '<head>', '</body>', '<iframe srcdoc="<p>x">', '<object>', '<x-custom>', '<p hidden>', '<article>', '\u0000',
];

function checkOutcome(outcome: ParseOutcome): void {
  if (outcome.ok) {
    for (const page of outcome.pages) expect(typeof page.text).toBe('string');
    for (const w of outcome.warnings) expect(typeof w).toBe('string');
  } else {
    expect(REASONS.has(outcome.reason)).toBe(true);
    expect(outcome.message.length).toBeGreaterThan(0);
  }
}

const textOf = (outcome: ParseOutcome): string => (outcome.ok ? outcome.pages.map((p) => p.text).join('') : '');

/** Nested JSON of random shape and depth (up to 1,000 levels), the kind that explodes when indented naively. */
const deepJson = fc.tuple(fc.integer({ min: 0, max: 1_000 }), fc.constantFrom('{"a":', '[', '{"k":[')).map(([depth, open]) => {
  const close = open === '[' ? ']' : open === '{"a":' ? '}' : ']}';
  return `${open.repeat(depth)}1${close.repeat(depth)}`;
});

afterAll(() => console.log(`extractor properties: ${tallyLine()}`));

describe('parseText, property-based', () => {
  for (const format of ['txt', 'md', 'csv', 'json'] as const) {
    it(`${format}: any bytes give an outcome, never a throw; the text is no longer than the decoded input`, async () => {
      await check(
        `parseText ${format}`,
        fc.property(fc.oneof(fc.uint8Array({ maxLength: 4096 }), hostileText(TEXT_TOKENS, MAX_TOKENS).map((s) => new TextEncoder().encode(s))), (bytes) => {
          const outcome = parseText(format, bytes, `f.${format}`);
          checkOutcome(outcome);
          checkOutcome(finishResult(format, outcome, `f.${format}`, 10_000) as ParseOutcome);
          // JSON may be re-indented: at most 2 spaces per level up to MAX_PRETTY_JSON_DEPTH, plus a line break, per input character.
          const factor = format === 'json' ? 2 * MAX_PRETTY_JSON_DEPTH + 4 : 1;
          expect(textOf(outcome).length).toBeLessThanOrEqual(factor * bytes.length + 1);
        }),
        RUNS.pure,
      );
    });
  }

  it('json: nesting of any depth is indented only while it stays shallow, so the text stays proportional to the input', async () => {
    await check(
      'parseText deep json',
      fc.property(deepJson, (json) => {
        const outcome = parseText('json', new TextEncoder().encode(json), 'deep.json');
        checkOutcome(outcome);
        expect(textOf(outcome).length).toBeLessThanOrEqual((2 * MAX_PRETTY_JSON_DEPTH + 4) * json.length);
      }),
      RUNS.pure,
    );
  });

  it('tidyPageText never grows its input', async () => {
    await check('tidyPageText', fc.property(hostileText(TEXT_TOKENS, MAX_TOKENS), (text) => {
      expect(tidyPageText(text).length).toBeLessThanOrEqual(text.length);
    }), RUNS.pure);
  });

  it('readUrlFile answers a URL or a reason for any text', async () => {
    await check(
      'readUrlFile',
      fc.property(fc.oneof(hostileText([...TEXT_TOKENS, 'URL=', '[InternetShortcut]\n', 'http://', 'https://', 'file:///etc/passwd', 'javascript:'], 60), fc.webUrl()), (text) => {
        const target = readUrlFile(text, 'x.url');
        if (target.ok) expect(target.url).toMatch(/^https?:\/\//);
        else expect(target.message.length).toBeGreaterThan(0);
      }),
      RUNS.pure,
    );
  });
});

describe('HTML parsers, property-based', () => {
  const html = fc.oneof(hostileText(HTML_TOKENS, MAX_TOKENS), fc.uint8Array({ maxLength: 2048 }).map((b) => Buffer.from(b).toString('latin1')));

  it('parseHtml (cheerio, jsdom, Readability, turndown): any page gives an outcome, never a throw', async () => {
    await check('parseHtml', fc.asyncProperty(html, async (page) => checkOutcome(await parseHtml(new TextEncoder().encode(page), 'p.html'))), RUNS.slow);
  });

  it('the websearch page reader returns text no longer than the page, for any page', async () => {
    await check(
      'extractPageText',
      fc.property(html, (page) => {
        const text = extractPageText(page);
        expect(typeof text).toBe('string');
        expect(text.length).toBeLessThanOrEqual(page.length + 1);
      }),
      RUNS.pure,
    );
  });

  it('the streaming count never exceeds the number of "<" in the page, and the streaming text never exceeds the page', async () => {
    await check(
      'countHtmlElements + streamHtmlText',
      fc.property(html, (page) => {
        const count = countHtmlElements(page);
        expect(count).toBeGreaterThanOrEqual(0);
        expect(count).toBeLessThanOrEqual(page.split('<').length - 1);
        expect(streamHtmlText(page).length).toBeLessThanOrEqual(page.length);
      }),
      RUNS.pure,
    );
  });
});

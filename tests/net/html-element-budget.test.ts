// Pages too big for a DOM tree are noticed by a streaming count and read by a streaming parse, in the extractor and the websearch server.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractPageText } from '../../mcp-servers/websearch/page-text.js';
import { countHtmlElements, MAX_TREE_ELEMENTS, streamHtmlText } from '../../src/net/html-element-budget.js';
import { createExtractor, type WorkerExtractor } from '../../src/rag/extract/index.js';
import { manyElements } from '../fixtures/hostile-documents.js';

/** Past the tree limit by half; the million-element page itself is in the hostile-documents bench. */
const OVERSIZED = MAX_TREE_ELEMENTS * 1.5;
const PAGE = manyElements(OVERSIZED);

describe('countHtmlElements', () => {
  it('counts start tags, not tags inside comments, scripts or attribute values', () => {
    const html = '<html><!-- <p><p> --><body><script>if (a<b) document.write("<p>")</script><p title="<b>">x<br/></p></body></html>';
    expect(countHtmlElements(html)).toBe(5);
    expect(countHtmlElements(new TextEncoder().encode(html))).toBe(5);
  });

  it('stops soon after the limit instead of reading the rest', () => {
    const count = countHtmlElements(manyElements(1_000_000), MAX_TREE_ELEMENTS);
    expect(count).toBeGreaterThan(MAX_TREE_ELEMENTS);
    expect(count).toBeLessThan(MAX_TREE_ELEMENTS + 64 * 1024);
  });
});

describe('streamHtmlText', () => {
  it('keeps visible text, one block a line, and drops scripts and styles', () => {
    const html = '<html><head><title>T</title><style>p{}</style></head><body><h1>Head &amp; line</h1><p>One <b>two</b></p><script>x()</script><div>three</div></body></html>';
    expect(streamHtmlText(html)).toBe('T\nHead & line\nOne two\nthree');
  });
});

describe('a page with more elements than a tree is built for', () => {
  let folder: string;
  let extractor: WorkerExtractor;
  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'cortex-million-'));
    await writeFile(join(folder, 'big.html'), PAGE);
    extractor = createExtractor({ documentsDir: folder });
  });
  afterAll(async () => {
    await extractor.close();
    await rm(folder, { recursive: true, force: true });
  });

  it('is read by the extractor without a DOM, with a warning saying so', async () => {
    const result = await extractor.extract(join(folder, 'big.html'));
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.warnings).toEqual([`big.html has more than ${MAX_TREE_ELEMENTS.toLocaleString('en-US')} elements; its plain text was read without building the page.`]);
    expect(result.pages[0]!.text.startsWith('Big\nx\nx\nx')).toBe(true);
  });

  it('is read by the websearch page parser without a DOM', () => {
    const text = extractPageText(PAGE);
    expect(text.split('\n')).toEqual(['Big', ...Array<string>(OVERSIZED).fill('x')]);
  });
});

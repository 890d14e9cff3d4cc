// Pure helpers of extraction: text decoding, .url parsing, content types, limits, tree text.
import { describe, expect, it } from 'vitest';
import { decodeText } from '../../../src/rag/extract/decode-text.js';
import { formatOfContentType, formatOfPath } from '../../../src/rag/extract/formats.js';
import { treeStats, treeText, type TreeNode } from '../../../src/rag/extract/html-tree.js';
import { resolveExtractionLimits } from '../../../src/rag/extract/limits.js';
import { isInside } from '../../../src/rag/extract/read-safely.js';
import { readUrlFile } from '../../../src/rag/extract/url-file.js';

describe('decodeText', () => {
  it('falls back to Windows-1252 with a warning when the bytes are not UTF-8', () => {
    const result = decodeText(Buffer.from([0x63, 0x61, 0x66, 0xe9]), 'old.txt');
    expect(result).toEqual({ ok: true, text: 'café', warnings: ['old.txt is not valid UTF-8; it was read as Windows-1252.'] });
  });

  it('normalises Windows line endings', () => {
    expect(decodeText(Buffer.from('a\r\nb\rc'), 'x.txt')).toMatchObject({ ok: true, text: 'a\nb\nc' });
  });

  it('refuses text with many control characters as binary', () => {
    expect(decodeText(Buffer.from('ab\x01\x02\x03\x04cd'), 'x.txt')).toMatchObject({ ok: false });
    expect(decodeText(Buffer.from('tab\there, escape \x1b[0m is fine'), 'x.txt')).toMatchObject({ ok: true });
  });
});

describe('readUrlFile', () => {
  it('takes a bare URL on the first non-empty line', () => {
    expect(readUrlFile('\n  https://example.test/a?b=1  \nignored', 'a.url')).toEqual({ ok: true, url: 'https://example.test/a?b=1' });
  });

  it('takes the URL= line of an InternetShortcut section wherever it is', () => {
    expect(readUrlFile('[InternetShortcut]\nIDList=\nurl = http://example.test/x\n', 'a.url')).toEqual({ ok: true, url: 'http://example.test/x' });
  });

  it('refuses other schemes and garbage', () => {
    expect(readUrlFile('data:text/html,<p>x</p>', 'a.url')).toMatchObject({ ok: false, message: 'a.url: only http and https URLs are fetched, not data:.' });
    expect(readUrlFile('just words', 'a.url')).toMatchObject({ ok: false });
  });
});

describe('formats', () => {
  it('maps extensions case-insensitively and rejects unknown ones', () => {
    expect(formatOfPath('dir/Report.PDF')).toBe('pdf');
    expect(formatOfPath('page.htm')).toBe('html');
    expect(formatOfPath('link.url')).toBe('url');
    expect(formatOfPath('archive.zip')).toBeNull();
    expect(formatOfPath('README')).toBeNull();
  });

  it('maps content types, sniffing the body when the type says nothing', () => {
    const none = new Uint8Array();
    expect(formatOfContentType('text/html; charset=utf-8', none)).toBe('html');
    expect(formatOfContentType('application/ld+json', none)).toBe('json');
    expect(formatOfContentType('text/plain', none)).toBe('txt');
    expect(formatOfContentType('application/octet-stream', Buffer.from('%PDF-1.7 ...'))).toBe('pdf');
    expect(formatOfContentType('', Buffer.from('  <!DOCTYPE html><html>'))).toBe('html');
    expect(formatOfContentType('image/png', none)).toBeNull();
  });
});

describe('isInside', () => {
  it('accepts descendants only, not the folder itself or a sibling sharing its prefix', () => {
    expect(isInside('/docs', '/docs/a/b.txt')).toBe(true);
    expect(isInside('/docs', '/docs/..hidden')).toBe(true);
    expect(isInside('/docs', '/docs')).toBe(false);
    expect(isInside('/docs', '/docs-2/a.txt')).toBe(false);
    expect(isInside('/docs', '/etc/passwd')).toBe(false);
  });
});

describe('resolveExtractionLimits', () => {
  it('fills defaults and clamps non-finite or out-of-range values', () => {
    const limits = resolveExtractionLimits({ timeoutMs: Number.POSITIVE_INFINITY, maxFileBytes: -5, maxTextChars: 1e12 });
    expect(limits).toEqual({ timeoutMs: 30_000, maxFileBytes: 1, maxTextChars: 100_000_000 });
  });
});

describe('html tree walkers', () => {
  const text = (data: string): TreeNode => ({ type: 'text', data });
  const el = (name: string, ...children: TreeNode[]): TreeNode => ({ type: 'tag', name, children });
  const page: TreeNode = { type: 'root', children: [el('body', el('h2', text('Menu')), el('ul', el('li', text('Soup')), el('li', text(' Bread  roll '))), el('p', text('Open '), el('b', text('daily')), text('.')))] };

  it('measures depth, elements and the widest node', () => {
    expect(treeStats(page)).toEqual({ depth: 3, elements: 7, widest: 3 });
  });

  it('writes one paragraph per block with heading and list markers', () => {
    expect(treeText(page)).toBe('## Menu\n\n- Soup\n\n- Bread roll\n\nOpen daily.');
  });
});

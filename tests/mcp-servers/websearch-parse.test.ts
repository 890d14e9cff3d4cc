// Reading saved DuckDuckGo result pages and cluttered article pages, without any network.
import { describe, expect, it } from 'vitest';
import { decodeText } from '../../mcp-servers/websearch/decode-text.js';
import { cutText, extractPageText } from '../../mcp-servers/websearch/page-text.js';
import { runParseTask } from '../../mcp-servers/websearch/parse-task.js';
import {
  decodeResultLink,
  formatSearchResults,
  parseResultsPage,
  type SearchResult,
} from '../../mcp-servers/websearch/search-results.js';
import { fixture } from '../fixtures/websearch/fixture-server.js';

const resultsPage = fixture('ddg-results.html').toString('utf8');

function resultsOf(html: string, max = 30): SearchResult[] {
  const page = parseResultsPage(html, max);
  if (page.kind !== 'results') throw new Error(`expected results, got ${page.kind}`);
  return page.results;
}

describe('parseResultsPage', () => {
  it('reads title, decoded link and snippet of each organic result, skipping the ads', () => {
    const results = resultsOf(resultsPage);
    expect(results).toHaveLength(12);
    expect(results[1]).toEqual({
      position: 2,
      title: 'Eiffel Tower - Wikipedia',
      url: 'https://en.wikipedia.org/wiki/Eiffel_Tower',
      snippet:
        'The Eiffel Tower is a wrought-iron lattice tower on the Champ de Mars in Paris, France. It is named after the engineer ' +
        'Gustave Eiffel, whose company designed and built the tower from 1887 to 1889.',
    });
    const all = JSON.stringify(results);
    expect(all).not.toContain('Skip The Line');
    expect(all).not.toContain('y.js');
    expect(all).not.toContain('Paris Tours from');
    expect(results.map((r) => r.position)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
  });

  it('decodes entities and keeps the spaces around bold query words', () => {
    const [first] = resultsOf(resultsPage);
    expect(first?.title).toBe('Why the Eiffel Tower grows in summer — Fixture Science News');
    expect(resultsOf(resultsPage)[5]?.snippet).toBe(
      "Built for the 1889 World's Fair, the tower was the tallest man-made structure in the world until 1930.",
    );
  });

  it('keeps the query string of a redirected link intact', () => {
    expect(resultsOf(resultsPage)[4]?.url).toBe('https://www.example-news.com/europe/eiffel-tower-height?ref=ddg&utm_source=x');
  });

  it('stops at max_results', () => {
    expect(resultsOf(resultsPage, 3).map((r) => r.title)).toHaveLength(3);
  });

  it('recognises the "no results" page', () => {
    expect(parseResultsPage(fixture('ddg-no-results.html').toString('utf8'), 10)).toEqual({ kind: 'no_results' });
  });

  it('recognises the bot check (CAPTCHA) page', () => {
    expect(parseResultsPage(fixture('ddg-bot-check.html').toString('utf8'), 10)).toEqual({ kind: 'bot_check' });
  });

  it('calls a page that is not a result page unrecognised', () => {
    expect(parseResultsPage(fixture('eiffel-tower-article.html').toString('utf8'), 10)).toEqual({ kind: 'unrecognised' });
    expect(parseResultsPage('', 10)).toEqual({ kind: 'unrecognised' });
  });
});

describe('decodeResultLink', () => {
  it('decodes the uddg redirect and drops the tracking parameter', () => {
    expect(decodeResultLink('//duckduckgo.com/l/?uddg=https%3A%2F%2Fa.example%2Fx%3Fy%3D1%26z%3D2&rut=abc')).toBe('https://a.example/x?y=1&z=2');
    expect(decodeResultLink('https://duckduckgo.com/l/?uddg=http%3A%2F%2Fb.example%2F')).toBe('http://b.example/');
  });

  it('keeps a direct link and refuses ads and non-web targets', () => {
    expect(decodeResultLink('https://direct.example/page')).toBe('https://direct.example/page');
    expect(decodeResultLink('https://duckduckgo.com/y.js?ad_domain=x&u3=https%3A%2F%2Fbing.com')).toBeUndefined();
    expect(decodeResultLink('//duckduckgo.com/l/?uddg=javascript%3Aalert(1)')).toBeUndefined();
    expect(decodeResultLink('//duckduckgo.com/l/?rut=abc')).toBeUndefined();
  });
});

describe('formatSearchResults', () => {
  it('writes the original server\'s text layout', () => {
    const text = formatSearchResults([
      { position: 1, title: 'A', url: 'https://a.example/', snippet: 'First.' },
      { position: 2, title: 'B', url: 'https://b.example/', snippet: 'Second.' },
    ]);
    expect(text).toBe(
      'Found 2 search results:\n\n1. A\n   URL: https://a.example/\n   Summary: First.\n\n2. B\n   URL: https://b.example/\n   Summary: Second.',
    );
  });
});

describe('extractPageText', () => {
  const text = extractPageText(fixture('eiffel-tower-article.html').toString('utf8'));

  it('keeps the title, headings, paragraphs, captions and asides in order, one block per line', () => {
    const lines = text.split('\n');
    expect(lines[0]).toBe('Why the Eiffel Tower grows in summer — Fixture Science News');
    expect(lines).toContain('Why the Eiffel Tower grows in summer');
    expect(lines).toContain('By Claire Martin · 14 July 2024');
    expect(lines).toContain('Does it lean?');
    expect(lines).toContain('Related stories');
    expect(text).toContain(
      'The Eiffel Tower is not quite the same height all year round. On a hot summer day the wrought-iron lattice expands, ' +
        'and its summit rises by as much as 15 centimetres.',
    );
    expect(text).toContain('tower’s 300 metres of structure, a 40-degree swing');
    expect(text.indexOf('Does it lean?')).toBeLessThan(text.indexOf('Today the tower stands 330 metres'));
  });

  it('leaves out scripts, styles, navigation, header, footer, forms, embeds and hidden parts', () => {
    expect(text).not.toMatch(/SHOULD_NOT_APPEAR/);
    expect(text).not.toContain('Post comment');
  });

  it('normalises whitespace: no runs of spaces, no blank lines, no non-breaking spaces', () => {
    expect(text).not.toMatch(/ {2}|\n\n|\u00a0|^\s|\s$/);
  });

  it('survives a page nested too deep for a recursive walk', () => {
    expect(extractPageText(`${'<span>'.repeat(20_000)}deep${'</span>'.repeat(20_000)}`)).toBe('deep');
  });
});

describe('cutText', () => {
  it('returns short text unchanged', () => {
    expect(cutText('short', { maxChars: 10 })).toBe('short');
  });

  it('cuts long text with a marker giving the kept and total length', () => {
    const cut = cutText('x'.repeat(9_000));
    expect(cut).toBe(`${'x'.repeat(8_000)}\n… [content truncated: showing the first 8000 of 9000 characters]`);
  });

  it('never splits a surrogate pair', () => {
    const cut = cutText(`${'a'.repeat(4)}😀tail`, { maxChars: 5 });
    expect(cut.startsWith('aaaa\n')).toBe(true);
  });

  it('says when the page was longer than the size cap', () => {
    expect(cutText('text', { bodyTruncated: true, maxBodyBytes: 2 * 1024 * 1024 })).toBe('text\n… [page cut: only its first 2048 KB were read]');
  });
});

describe('decodeText', () => {
  it('uses the <meta> charset when the header gives none', () => {
    expect(decodeText(fixture('latin1-recipe.html'), undefined)).toContain('Crème brûlée');
  });

  it('prefers the header charset to the <meta> one, and a byte-order mark to both', () => {
    const bytes = Buffer.from('<meta charset="utf-8"><p>caf\u00e9</p>', 'latin1');
    expect(decodeText(bytes, 'iso-8859-1')).toContain('café');
    const withBom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('café', 'utf8')]);
    expect(decodeText(withBom, 'iso-8859-1')).toBe('café');
  });

  it('falls back to UTF-8 for an unknown charset label', () => {
    expect(decodeText(Buffer.from('café', 'utf8'), 'no-such-charset')).toBe('café');
  });
});

describe('runParseTask', () => {
  it('reads plain text as text, not as HTML', () => {
    const outcome = runParseTask({
      kind: 'page',
      bytes: Buffer.from('a <b> c\n\n\n  d  '),
      charset: 'utf-8',
      mediaType: 'text/plain',
      maxChars: 100,
      bodyTruncated: false,
      maxBodyBytes: 1000,
    });
    expect(outcome).toEqual({ kind: 'page', text: 'a <b> c\nd' });
  });
});

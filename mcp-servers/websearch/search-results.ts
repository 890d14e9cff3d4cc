// Parses a DuckDuckGo HTML-endpoint result page with cheerio (in the parse worker; the text for the model is search-results-text.ts).
import { load } from 'cheerio/slim';
import type { SearchResult } from './search-results-text.js';

export { formatSearchResults, noResultsMessage, type SearchResult } from './search-results-text.js';

/** What a result page turned out to be. */
export type ParsedResultsPage =
  | { kind: 'results'; results: SearchResult[] }
  /** The page says there were no results. */
  | { kind: 'no_results' }
  /** DuckDuckGo answered with its bot check (a CAPTCHA) instead of results. */
  | { kind: 'bot_check' }
  /** Neither results nor a "no results" notice: not a DuckDuckGo HTML result page, or its layout changed. */
  | { kind: 'unrecognised' };

/** Longest title and snippet kept, in characters; a hostile page cannot flood the model's context through them. */
const MAX_TITLE_CHARS = 300;
const MAX_SNIPPET_CHARS = 1_000;

/** Relative links on the result page are relative to DuckDuckGo. */
const DDG_BASE = 'https://duckduckgo.com/';

function clean(text: string, maxChars: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > maxChars ? `${flat.slice(0, maxChars - 1)}…` : flat;
}

/**
 * The target of a result link: DuckDuckGo's `//duckduckgo.com/l/?uddg=<encoded target>&rut=…` redirect decoded,
 * a direct link made absolute. Undefined for ad links (`/y.js?…`), links that do not parse and non-http(s) targets.
 */
export function decodeResultLink(href: string): string | undefined {
  let url: URL;
  try {
    url = new URL(href, DDG_BASE);
    const onDdg = url.hostname === 'duckduckgo.com' || url.hostname.endsWith('.duckduckgo.com');
    if (onDdg && url.pathname === '/y.js') return undefined;
    if (onDdg && url.pathname === '/l/') {
      const target = url.searchParams.get('uddg');
      if (!target) return undefined;
      url = new URL(target);
    }
  } catch {
    return undefined;
  }
  return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
}

/** Parses a DuckDuckGo HTML result page, skipping ads, keeping at most `maxResults` results. */
export function parseResultsPage(html: string, maxResults: number): ParsedResultsPage {
  const $ = load(html);
  const results: SearchResult[] = [];
  for (const element of $('.result').toArray()) {
    if (results.length >= maxResults) break;
    const result = $(element);
    if (result.is('.result--ad') || result.find('.badge--ad').length > 0) continue;
    const anchor = result.find('a.result__a').first().length > 0 ? result.find('a.result__a').first() : result.find('.result__title a').first();
    const url = decodeResultLink(anchor.attr('href') ?? '');
    const title = clean(anchor.text(), MAX_TITLE_CHARS);
    if (!url || !title) continue;
    results.push({ position: results.length + 1, title, url, snippet: clean(result.find('.result__snippet').first().text(), MAX_SNIPPET_CHARS) });
  }
  if (results.length > 0) return { kind: 'results', results };
  if ($('#challenge-form, .anomaly-modal__modal, form[action*="anomaly"]').length > 0) return { kind: 'bot_check' };
  if ($('.no-results, .result--no-result').length > 0 || $('#links, .results').length > 0) return { kind: 'no_results' };
  return { kind: 'unrecognised' };
}

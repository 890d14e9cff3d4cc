// The duckduckgo_search_results tool: POST the query to the HTML endpoint, parse the page, format the results.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { exampleMeta } from '../shared/example-meta.js';
import { toolError } from '../shared/tool-result.js';
import { safeFetch } from '../../src/net/safe-fetch.js';
import { formatSearchResults, noResultsMessage, type SearchResult } from './search-results-text.js';
import { WebFetchError } from '../../src/net/web-fetch-error.js';
import { takeRateSlot, type WebsearchContext } from './websearch-context.js';

/** Most results one call returns; one DuckDuckGo HTML page holds about 30. */
export const MAX_SEARCH_RESULTS = 30;

/** Longest query accepted, in characters; DuckDuckGo ignores most of anything longer. */
const MAX_QUERY_CHARS = 500;

const searchResultSchema = z.object({
  position: z.number().int().describe('1-based rank'),
  title: z.string(),
  url: z.string().describe('The result page, DuckDuckGo redirect decoded'),
  snippet: z.string(),
});

/**
 * The tool result: the formatted text as `result` (what tools.duckduckgo_search_results() resolves to) and the
 * same results as a list for code that wants fields, in structuredContent and as JSON text.
 */
function searchResult(text: string, results: SearchResult[]): CallToolResult {
  const structuredContent = { result: text, results };
  return { content: [{ type: 'text', text: JSON.stringify(structuredContent) }], structuredContent };
}

/** Runs one search; every expected failure is an isError result saying what to do. */
async function search(ctx: WebsearchContext, rawQuery: string, maxResults: number): Promise<CallToolResult> {
  const query = rawQuery.replace(/\s+/g, ' ').trim();
  if (query === '') return toolError('the query is empty; give the words to search for');
  const refused = takeRateSlot(ctx.searchLimiter, 'searches');
  if (refused) return toolError(refused);
  try {
    // The same form fields DuckDuckGo's own HTML page posts (b: no bang redirect, kl: no region).
    const body = await safeFetch(ctx.searchUrl, { ...ctx.fetch, method: 'POST', form: { q: query, b: '', kl: '' } });
    const outcome = await ctx.parse({ kind: 'search', bytes: body.bytes, charset: body.charset, maxResults });
    if (outcome.kind !== 'search') throw new Error(`parse runner answered a ${outcome.kind} task for a search`);
    const page = outcome.page;
    switch (page.kind) {
      case 'results':
        return searchResult(formatSearchResults(page.results), page.results);
      case 'no_results':
        return searchResult(noResultsMessage(query), []);
      case 'bot_check':
        return toolError('DuckDuckGo answered with its bot check (a CAPTCHA) instead of results; wait a few minutes before searching again');
      case 'unrecognised':
        return toolError(
          `the search endpoint ${ctx.searchUrl} did not answer with a DuckDuckGo result page (no result list found); ` +
            'DuckDuckGo may have changed its page, or the endpoint is wrong',
        );
    }
  } catch (err) {
    if (err instanceof WebFetchError) return toolError(`search for "${query}" failed: ${err.message}`);
    throw err;
  }
}

/** Registers duckduckgo_search_results on `server`. */
export function registerSearchTool(server: McpServer, ctx: WebsearchContext): void {
  server.registerTool(
    'duckduckgo_search_results',
    {
      title: 'Search the web with DuckDuckGo',
      description:
        'Searches DuckDuckGo and returns the top results as text: "Found N search results:" then, for each, ' +
        '"1. Title", "URL: …", "Summary: …". Ads are left out. Read a result page with download_raw_html_from_url. ' +
        `At most ${ctx.searchLimiter.limit} searches a minute.`,
      inputSchema: {
        query: z.string().min(1).max(MAX_QUERY_CHARS).describe('What to search for, as words typed into a search box'),
        max_results: z
          .number()
          .int()
          .min(1)
          .max(MAX_SEARCH_RESULTS)
          .default(10)
          .describe(`How many results to return, 1 to ${MAX_SEARCH_RESULTS} (default 10)`),
      },
      outputSchema: {
        result: z.string().describe('The results formatted as text: "Found N search results: 1. Title / URL / Summary"'),
        results: z.array(searchResultSchema).describe('The same results as a list'),
      },
      annotations: { readOnlyHint: true, openWorldHint: true },
      _meta: exampleMeta({ query: 'Model Context Protocol', max_results: 3 }),
    },
    ({ query, max_results }) => search(ctx, query, max_results),
  );
}

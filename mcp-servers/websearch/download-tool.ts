// The download_raw_html_from_url tool: fetch a page safely and return its readable text, cut at 8,000 characters.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { exampleMeta } from '../shared/example-meta.js';
import { toolError, toolResult } from '../shared/tool-result.js';
import { parseHttpUrl, safeFetch } from '../../src/net/safe-fetch.js';
import { WebFetchError } from '../../src/net/web-fetch-error.js';
import { takeRateSlot, type WebsearchContext } from './websearch-context.js';

/** Longest URL accepted, in characters; browsers and servers commonly stop at 8 KB. */
const MAX_URL_CHARS = 8_192;

/** Downloads one page; every expected failure is an isError result saying what went wrong. */
async function download(ctx: WebsearchContext, rawUrl: string): Promise<CallToolResult> {
  try {
    // A malformed or non-http URL is refused before it costs a slot of the rate limit.
    const url = parseHttpUrl(rawUrl.trim());
    const refused = takeRateSlot(ctx.fetchLimiter, 'page downloads');
    if (refused) return toolError(refused);
    const body = await safeFetch(url.href, { ...ctx.fetch, sameSiteRedirectsOnly: true });
    const outcome = await ctx.parse({
      kind: 'page',
      bytes: body.bytes,
      charset: body.charset,
      mediaType: body.mediaType,
      maxChars: ctx.maxPageChars,
      bodyTruncated: body.truncated,
      maxBodyBytes: ctx.maxBodyBytes,
    });
    if (outcome.kind !== 'page') throw new Error(`parse runner answered a ${outcome.kind} task for a page`);
    if (outcome.text === '') {
      return toolError(`${body.url} has no readable text (the page may build its content with JavaScript, which is not run)`);
    }
    return toolResult(outcome.text);
  } catch (err) {
    if (err instanceof WebFetchError) return toolError(err.message);
    throw err;
  }
}

/** Registers download_raw_html_from_url on `server`; its example downloads the search endpoint's own page. */
export function registerDownloadTool(server: McpServer, ctx: WebsearchContext): void {
  server.registerTool(
    'download_raw_html_from_url',
    {
      title: 'Read a web page',
      description:
        'Downloads an http(s) web page and returns its readable text: scripts, styles, navigation, headers, footers ' +
        `and forms removed, whitespace normalised, cut at ${ctx.maxPageChars} characters with a marker. ` +
        `HTML and plain text only (no PDFs or images). At most ${ctx.fetchLimiter.limit} pages a minute.`,
      inputSchema: {
        url: z.string().min(1).max(MAX_URL_CHARS).describe('Absolute URL of the page, starting with http:// or https://'),
      },
      outputSchema: { result: z.string().describe("The page's readable text") },
      annotations: { readOnlyHint: true, openWorldHint: true },
      // The search endpoint is the one site the server is configured to reach, so its page makes a working example.
      _meta: exampleMeta({ url: ctx.searchUrl }),
    },
    ({ url }) => download(ctx, url),
  );
}

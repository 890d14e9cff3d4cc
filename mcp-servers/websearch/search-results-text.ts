// The search results as text for the model, as the original server wrote them; no HTML parser, so the server loads none at start.

/** One organic (non-ad) search result. */
export interface SearchResult {
  /** 1-based rank among the returned results. */
  position: number;
  title: string;
  /** The target page, with DuckDuckGo's redirect (//duckduckgo.com/l/?uddg=…) decoded. */
  url: string;
  snippet: string;
}

/**
 * The results as the original server wrote them for the model:
 * "Found N search results:\n\n1. Title\n   URL: …\n   Summary: …", a blank line between results.
 */
export function formatSearchResults(results: readonly SearchResult[]): string {
  const lines = [`Found ${results.length} search results:`, ''];
  for (const r of results) lines.push(`${r.position}. ${r.title}`, `   URL: ${r.url}`, `   Summary: ${r.snippet}`, '');
  return lines.join('\n').trimEnd();
}

/** The message for a search that found nothing (a success: the model should rephrase, not retry the same call). */
export function noResultsMessage(query: string): string {
  return `No results were found for "${query}". Try different or fewer words.`;
}

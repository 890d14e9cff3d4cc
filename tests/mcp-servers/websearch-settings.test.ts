// The websearch server's environment variables: defaults when unset, clear errors when malformed.
import { describe, expect, it } from 'vitest';
import { readWebsearchSettings, WEBSEARCH_ENV } from '../../mcp-servers/websearch/settings.js';

describe('readWebsearchSettings', () => {
  it('refuses private addresses and leaves every other option to its default when nothing (or an empty string) is set', () => {
    expect(readWebsearchSettings({})).toEqual({ blockPrivateNetwork: true });
    expect(readWebsearchSettings({ CORTEX_DDG_URL: '', CORTEX_BLOCK_PRIVATE_NETWORK: ' ' })).toEqual({ blockPrivateNetwork: true });
  });

  it('reads every variable', () => {
    expect(
      readWebsearchSettings({
        CORTEX_DDG_URL: 'http://127.0.0.1:8080/html/',
        CORTEX_BLOCK_PRIVATE_NETWORK: 'TRUE',
        CORTEX_WEBSEARCH_SEARCHES_PER_MINUTE: '5',
        CORTEX_WEBSEARCH_FETCHES_PER_MINUTE: '7',
        CORTEX_WEBSEARCH_TIMEOUT_MS: '2500',
      }),
    ).toEqual({ searchUrl: 'http://127.0.0.1:8080/html/', blockPrivateNetwork: true, searchesPerMinute: 5, fetchesPerMinute: 7, timeoutMs: 2500 });
    expect(readWebsearchSettings({ CORTEX_BLOCK_PRIVATE_NETWORK: 'off' })).toEqual({ blockPrivateNetwork: false });
  });

  it.each([
    [WEBSEARCH_ENV.searchUrl, 'ftp://x/', 'CORTEX_DDG_URL: expected an absolute http:// or https:// URL, got "ftp://x/"'],
    [WEBSEARCH_ENV.searchUrl, 'duckduckgo', 'CORTEX_DDG_URL: expected an absolute http:// or https:// URL, got "duckduckgo"'],
    [WEBSEARCH_ENV.blockPrivateNetwork, 'maybe', 'CORTEX_BLOCK_PRIVATE_NETWORK: expected true or false, got "maybe"'],
    [WEBSEARCH_ENV.searchesPerMinute, '0', 'CORTEX_WEBSEARCH_SEARCHES_PER_MINUTE: expected a whole number from 1 to 10000, got "0"'],
    [WEBSEARCH_ENV.fetchesPerMinute, '2.5', 'CORTEX_WEBSEARCH_FETCHES_PER_MINUTE: expected a whole number from 1 to 10000, got "2.5"'],
    [WEBSEARCH_ENV.timeoutMs, 'Infinity', 'CORTEX_WEBSEARCH_TIMEOUT_MS: expected a whole number from 100 to 120000, got "Infinity"'],
  ])('names %s when its value %j is unusable', (name, value, message) => {
    expect(() => readWebsearchSettings({ [name]: value })).toThrow(message);
  });
});

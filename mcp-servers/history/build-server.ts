// Builds the history MCP server: search_past_sessions, so a plan can find what earlier sessions asked and answered.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { MAX_PAST_HITS, searchPastSessions } from '../../src/memory/search-sessions.js';
import { exampleMeta } from '../shared/example-meta.js';
import { toolError, toolResult } from '../shared/tool-result.js';
import { VERSION } from '../../src/version.js';

/** Server name reported in the MCP initialize handshake. */
export const HISTORY_SERVER_NAME = 'cortex-r-history';
/** Longest query accepted, in characters. */
const MAX_QUERY_CHARS = 2_000;

const HitSchema = z.object({
  session_id: z.string(),
  asked: z.string().describe('ISO time the question was asked'),
  question: z.string(),
  answer: z.string(),
});

/** A new McpServer over the session files in `memoryDir` (the profile's memory path). Not yet connected. */
export function buildHistoryServer({ memoryDir }: { memoryDir: string }): McpServer {
  const server = new McpServer(
    { name: HISTORY_SERVER_NAME, title: 'Cortex-R history', version: VERSION },
    { capabilities: { tools: {} }, instructions: 'Searches the questions asked and answered in earlier Cortex-R sessions.' },
  );
  server.registerTool(
    'search_past_sessions',
    {
      title: 'Search earlier sessions',
      description:
        'Finds questions asked in earlier sessions that match the query, each with the answer given then, best match first ' +
        '(keyword search over question and answer). Use it when the user refers to something asked or answered before.',
      inputSchema: {
        query: z.string().min(1).max(MAX_QUERY_CHARS).describe('Words to look for, e.g. "capital of Australia"'),
        limit: z.number().int().min(1).max(MAX_PAST_HITS).optional().describe(`How many matches to return (default 5, at most ${MAX_PAST_HITS})`),
      },
      outputSchema: { result: z.array(HitSchema).describe('Matching earlier questions with their answers, best first') },
      annotations: { readOnlyHint: true, openWorldHint: false },
      _meta: exampleMeta({ query: 'capital of Australia' }),
    },
    async ({ query, limit }) => {
      try {
        const { hits } = await searchPastSessions(memoryDir, query, { limit: limit ?? 5 });
        return toolResult(hits);
      } catch (err) {
        return toolError(`the earlier sessions could not be searched: ${err instanceof Error ? err.message : String(err)}`);
      }
    },
  );
  return server;
}

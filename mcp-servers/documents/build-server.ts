// Builds the documents MCP server (DESIGN §3.4, §3.8): search the indexed documents folder, extract a document, convert a web page.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { DocumentLibrary } from '../../src/rag/document-library.js';
import type { Extractor } from '../../src/rag/types.js';
import { registerExtractTool } from './extract-tool.js';
import { registerSearchTool } from './search-tool.js';
import { type ExtractUrl, registerWebpageTool } from './webpage-tool.js';
import { VERSION } from '../../src/version.js';

/** Server name reported in the MCP initialize handshake. */
export const DOCUMENTS_SERVER_NAME = 'cortex-r-documents';

export interface DocumentsServerOptions {
  /** The indexed documents folder (refreshed before each search). */
  library: DocumentLibrary;
  /** Reads files inside the documents folder only (symlinks and paths outside refused). */
  extractor: Extractor;
  documentsDir: string;
  /** Fetches an http(s) page (public addresses only, time and size capped) and extracts it: `extractor.extractUrl`. */
  extractUrl: ExtractUrl;
}

/**
 * A new McpServer offering search_stored_documents, extract_pdf and convert_webpage_url_into_markdown. Every tool
 * declares an outputSchema, returns `{result: string}`, answers expected failures with isError, and carries example
 * arguments in `_meta`. Not yet connected; indexing starts with the first search or the caller's library.refresh().
 */
export function buildDocumentsServer({ library, extractor, documentsDir, extractUrl }: DocumentsServerOptions): McpServer {
  const server = new McpServer(
    { name: DOCUMENTS_SERVER_NAME, title: 'Cortex-R documents', version: VERSION },
    {
      capabilities: { tools: {} },
      instructions: 'Search the documents the user stored (RAG over the documents folder), extract one as markdown, or fetch a web page as markdown.',
    },
  );
  registerSearchTool(server, library);
  registerExtractTool(server, extractor, documentsDir);
  registerWebpageTool(server, extractUrl);
  return server;
}

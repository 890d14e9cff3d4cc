// What the rest of the product knows about MCP tools: plain data, no SDK classes.

/** A tool offered by one of the configured MCP servers. */
export interface ToolInfo {
  /** Id of the server that offers it (from profiles.yaml). */
  server: string;
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  /** The tool's `_meta` (e.g. `cortex-r/example` arguments for `cortex servers test`). */
  meta?: Record<string, unknown>;
}

/** The MCP CallToolResult, as the server sent it. */
export interface ToolResult {
  content: Array<{ type: string; text?: string; [key: string]: unknown }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** Calls a tool by name on whichever server offers it. */
export interface ToolCaller {
  callTool(name: string, args: Record<string, unknown>, options?: { signal?: AbortSignal; timeoutMs?: number }): Promise<ToolResult>;
}

/** A server as perception sees it: from the config, plus its tool names and `instructions` (live or cached). */
export interface ServerSummary {
  id: string;
  description: string;
  capabilities: string[];
  tools?: string[];
  instructions?: string;
}

/** How a configured server is doing: starting (in the background), ready, failed, or disabled in the config. */
export interface ServerStatus {
  id: string;
  state: 'starting' | 'ready' | 'failed' | 'disabled';
  description: string;
  tools: string[];
  error?: string;
}

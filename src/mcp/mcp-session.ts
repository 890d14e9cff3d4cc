// One open MCP session as ServerConnection uses it, whichever SDK speaks it: v1 for the 2025 protocol versions, v2 for 2026-07-28.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { LazyOutputValidators } from './output-validators.js';
import { callAsTask } from './task-call.js';
import type { SessionRequestOptions } from './types.js';

export type { SessionRequestOptions };

/** A tool as tools/list gives it (the fields we read). */
export interface SessionTool {
  name: string;
  description?: string;
  inputSchema: unknown;
  outputSchema?: unknown;
  annotations?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
  execution?: { taskSupport?: string };
}

/** The requests ServerConnection makes, and what it reads of the server's answer to the handshake. */
export interface McpSession {
  /** The protocol version agreed with the server. */
  readonly protocolVersion: string;
  getServerVersion(): { name?: string; version?: string } | undefined;
  getInstructions(): string | undefined;
  getServerCapabilities(): { tools?: unknown; resources?: unknown; prompts?: unknown; tasks?: { requests?: { tools?: { call?: unknown } } }; extensions?: Record<string, unknown> } | undefined;
  /** `ttlMs`: how long the server says the list stays fresh (2026-07-28), when it says. */
  listTools(params: { cursor: string } | undefined, options: SessionRequestOptions): Promise<{ tools: SessionTool[]; nextCursor?: string; ttlMs?: number }>;
  /**
   * `definition`: the tool as listed, for what the protocol derives from its schema (2026-07-28 over HTTP: the
   * `Mcp-Param-*` headers mirroring its `x-mcp-header` parameters).
   */
  callTool(params: { name: string; arguments: Record<string, unknown>; _meta?: Record<string, unknown> }, options: SessionRequestOptions, definition?: SessionTool): Promise<unknown>;
  readResource(params: { uri: string }, options: SessionRequestOptions): Promise<{ contents: unknown[] }>;
  listPrompts(options: SessionRequestOptions): Promise<{ prompts: Array<{ name: string; description?: string; arguments?: Array<{ name: string; required?: boolean }> }> }>;
  getPrompt(params: { name: string; arguments: Record<string, string> }, options: SessionRequestOptions): Promise<{ messages: Array<{ content: { type: string; text?: string } }> }>;
  close(): Promise<void>;
}

/**
 * A connected SDK v1 client as a session (the 2025 protocol versions), `protocolVersion` agreed; `validators` are the
 * client's own (its `jsonSchemaValidator`). Errors pass through unchanged.
 */
export function legacySession(client: Client, protocolVersion: string, validators: LazyOutputValidators): McpSession {
  return {
    protocolVersion,
    getServerVersion: () => client.getServerVersion(),
    getInstructions: () => client.getInstructions(),
    getServerCapabilities: () => client.getServerCapabilities(),
    listTools: (params, options) => client.listTools(params, options) as Promise<{ tools: SessionTool[]; nextCursor?: string }>,
    // A tool whose output schema cannot be compiled is not called. A task-only tool is created as a task and followed
    // to its result; others are called directly.
    callTool: async (params, options, definition) => {
      await validators.prepare(definition?.outputSchema);
      return isTaskOnly(definition) ? callAsTask(client, params, options) : client.callTool(params, undefined, options);
    },
    readResource: (params, options) => client.readResource(params, options),
    listPrompts: (options) => client.listPrompts(undefined, options),
    getPrompt: (params, options) => client.getPrompt(params, options),
    close: () => client.close(),
  };
}

/** A listed tool as the session takes it back on a call (`callTool`'s `definition`). */
export function definitionOf(tool: { remoteName: string; inputSchema: unknown; outputSchema?: unknown; taskOnly?: boolean }): SessionTool {
  return { name: tool.remoteName, inputSchema: tool.inputSchema, ...(tool.outputSchema ? { outputSchema: tool.outputSchema } : {}), ...(tool.taskOnly ? { execution: { taskSupport: 'required' } } : {}) };
}

/** Tools that can only run as MCP tasks (2025-11-25 `execution.taskSupport: "required"`). */
export function isTaskOnly(tool: { execution?: { taskSupport?: string } } | undefined): boolean {
  return tool?.execution?.taskSupport === 'required';
}

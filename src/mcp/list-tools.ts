// Lists a server's tools page by page, and says how long the list may be kept (2026-07-28 cache hints).
import type { ToolAnnotations, ToolInfo } from './types.js';
import { isTaskOnly, type McpSession } from './mcp-session.js';
import { TASKS_EXTENSION_ID } from './modern-task-call.js';

/** Pages of tools/list followed before we stop (a server paging forever would hang start-up). */
const MAX_TOOL_PAGES = 50;
/** A server listing more tools than this is refused: no model can use them, and the prompt would drown. */
export const MAX_TOOLS_PER_SERVER = 1_000;
/** Longest a list is taken as fresh whatever the server says: a server asking for a year still gets re-listed daily. */
const MAX_TOOL_LIST_FRESH_MS = 24 * 60 * 60_000;

/** A server's tools, and until when (epoch ms) they may be used without listing again; absent: list at every start. */
export interface ListedTools {
  tools: ToolInfo[];
  freshUntil?: number;
}

/**
 * Lists every page (bounded) of `serverId`'s tools through `session`. Task-only tools are kept (called as tasks) when
 * the server takes tools/call as a task, and left out otherwise. Throws what the SDK throws.
 */
export async function listTools(serverId: string, session: McpSession, options: { signal: AbortSignal; timeout: number; now: () => number }): Promise<ListedTools> {
  const capabilities = session.getServerCapabilities();
  if (!capabilities?.tools) return { tools: [] };
  // A task-only tool can be called only if the server takes tools/call as a task: its 2025 `tasks` capability, or the
  // 2026-07-28 tasks extension (where the server decides per call, and 2026 tools carry no `taskSupport`).
  const tasks = capabilities.tasks?.requests?.tools?.call !== undefined || capabilities.extensions?.[TASKS_EXTENSION_ID] !== undefined;
  const tools: ToolInfo[] = [];
  let cursor: string | undefined;
  let ttlMs: number | undefined;
  for (let page = 0; page < MAX_TOOL_PAGES; page++) {
    const res = await session.listTools(cursor ? { cursor } : undefined, { timeout: options.timeout, signal: options.signal });
    // The first page's hint speaks for the list (SEP-2549 gives it on every cacheable result).
    if (page === 0) ttlMs = res.ttlMs;
    for (const t of res.tools) {
      const taskOnly = isTaskOnly(t);
      if (taskOnly && !tasks) continue;
      if (tools.length >= MAX_TOOLS_PER_SERVER) throw new Error(`lists more than ${MAX_TOOLS_PER_SERVER} tools`);
      tools.push({
        server: serverId,
        name: t.name,
        remoteName: t.name,
        description: t.description ?? '',
        inputSchema: t.inputSchema as Record<string, unknown>,
        ...(t.outputSchema ? { outputSchema: t.outputSchema as Record<string, unknown> } : {}),
        ...(t.annotations ? { annotations: t.annotations as ToolAnnotations } : {}),
        ...(t._meta ? { meta: t._meta } : {}),
        ...(taskOnly ? { taskOnly } : {}),
      });
    }
    cursor = res.nextCursor;
    if (!cursor) break;
  }
  const fresh = typeof ttlMs === 'number' && Number.isFinite(ttlMs) && ttlMs > 0;
  return { tools, ...(fresh ? { freshUntil: options.now() + Math.min(ttlMs!, MAX_TOOL_LIST_FRESH_MS) } : {}) };
}

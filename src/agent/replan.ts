// Re-plan with another server: a plan that called a tool only an unselected server offers gets that server next time.

import type { ToolInfo } from '../mcp/types.js';
import type { ToolCallRecord } from '../sandbox/types.js';

/**
 * Servers perception did not choose whose tools a plan called by name (each refused as unknown, since the catalogue
 * offered only the chosen servers' tools): perception guessed wrong, and the next attempt should have them. A name
 * several unchosen servers offer brings all of them; a name nobody offers brings none.
 */
export function serversToAdd(calls: readonly ToolCallRecord[], offered: readonly ToolInfo[], all: readonly ToolInfo[]): string[] {
  const offeredServers = new Set(offered.map((t) => t.server));
  const added = new Set<string>();
  for (const call of unknownCalls(calls, offered)) {
    const name = call.tool.replace(/^tools\./, '');
    for (const t of all) {
      if (!offeredServers.has(t.server) && (t.name === name || t.remoteName === name || `${t.server}.${t.remoteName}` === name)) added.add(t.server);
    }
  }
  return [...added];
}

/** The calls refused because no offered tool has their name. */
export function unknownCalls(calls: readonly ToolCallRecord[], offered: readonly ToolInfo[]): ToolCallRecord[] {
  const offeredNames = new Set(offered.map((t) => t.name));
  return calls.filter((call) => !call.ok && call.server === undefined && !offeredNames.has(call.tool) && call.tool !== 'mcp.read_resource');
}

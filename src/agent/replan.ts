// Re-plan with other servers: a plan that called a tool only an unchosen server offers, or a model saying none of its
// tools fits, gets those servers on the next attempt.

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

/** A model saying its tools do not fit the task ("none of the available tools can…", "no suitable tool"). */
const NO_TOOL_FITS = /\b(?:none of (?:the|my|these|your)(?: available| listed| given)? tools\b|no (?:suitable|matching|appropriate|relevant|available) tools?\b|(?:cannot|can't|unable to)\b.{0,80}\bwith (?:the|these) (?:available|given|listed) tools\b|(?:the|these) (?:available|given|listed) tools (?:do not|don't|cannot|can't))/i;

/** True when the model's words say none of its tools fits (then it gets every server's tools). */
export function saysNoToolFits(words: string): boolean {
  return NO_TOOL_FITS.test(words);
}

/** The retry feedback when the model said none of its tools fits. */
export const NO_TOOL_FITS_FEEDBACK =
  'You said none of the tools fits the task. The tools of every configured server are now in the catalogue: use the one that fits, and answer with code.';

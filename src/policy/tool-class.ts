// What a tool is to the flow policy: read / write / egress (from its MCP annotations, or the profile), and what its results are.
import type { OwnServerKind } from '../config/server-env.js';
import { matchesEntry } from './approval-policy.js';
import type { ToolInfo } from '../mcp/types.js';

/** read: changes nothing and talks to nobody; write: changes the user's data or world; egress: its arguments leave the machine. */
export type ToolKind = 'read' | 'write' | 'egress';

/** What a tool's results are: content anyone could have written (web, mail, documents), or the user's private data. */
export interface ResultLabels {
  untrusted: boolean;
  private: boolean;
}

export interface ToolClass {
  kind: ToolKind;
  /** True when the call may change something (not read-only); an egress tool may also write (send_mail). */
  writes: boolean;
  returns: ResultLabels;
}

/** A profile override (`policy.tools`), keyed like approvals entries: `<server>.<tool>`, `<server>.*` or a bare tool name. */
export interface ToolClassOverride {
  class?: ToolKind;
  returns?: Array<'untrusted' | 'private'>;
}

const NOTHING: ResultLabels = { untrusted: false, private: false };
const OUTSIDE: ResultLabels = { untrusted: true, private: false };
/** The user's documents: private, and written by anyone (a downloaded PDF may carry an injection). */
const DOCUMENTS: ResultLabels = { untrusted: true, private: true };

/** Our own servers' results, which no annotation can say. Math computes from its arguments alone. */
const OWN_RESULTS: Record<OwnServerKind, Record<string, ResultLabels>> = {
  math: {},
  documents: { search_stored_documents: DOCUMENTS, extract_pdf: DOCUMENTS, convert_webpage_url_into_markdown: OUTSIDE },
  websearch: { duckduckgo_search_results: OUTSIDE, download_raw_html_from_url: OUTSIDE },
  // Earlier answers: the user's own (private), and built from whatever those questions read (untrusted).
  history: { search_past_sessions: DOCUMENTS },
};

/**
 * Classes a tool. The profile's override wins; otherwise the MCP annotations with the spec's defaults (readOnlyHint
 * false, openWorldHint true): open-world tools are egress, other non-read-only tools write, the rest read. Results of
 * our own servers are labelled from a table; anyone else's are private, and untrusted unless the tool declares
 * `openWorldHint: false` (a tool that says nothing counts as open-world, as the spec says).
 */
export function classifyTool(tool: ToolInfo, { ownServers, overrides }: { ownServers: ReadonlyMap<string, OwnServerKind>; overrides: Readonly<Record<string, ToolClassOverride>> }): ToolClass {
  const hints = tool.annotations ?? {};
  const writes = hints.readOnlyHint !== true;
  const openWorld = hints.openWorldHint !== false;
  const own = ownServers.get(tool.server);
  // Anyone else's results are the user's (private); untrusted too unless the tool says it stays in a closed world.
  const returns = own ? (OWN_RESULTS[own][tool.remoteName] ?? NOTHING) : { untrusted: openWorld, private: true };
  const found: ToolClass = { kind: openWorld ? 'egress' : writes ? 'write' : 'read', writes, returns: { ...returns } };
  const override = Object.entries(overrides).find(([entry]) => matchesEntry(tool, entry))?.[1];
  if (!override) return found;
  const kind = override.class ?? found.kind;
  return {
    kind,
    writes: override.class === undefined ? writes : kind === 'write' || (kind === 'egress' && writes),
    returns: override.returns ? { untrusted: override.returns.includes('untrusted'), private: override.returns.includes('private') } : found.returns,
  };
}

// What a tool is to the flow policy: read / write / egress (the profile, our table, known servers, annotations), and what its results are.
import type { OwnServerKind } from '../config/server-env.js';
import { matchesEntry } from './approval-policy.js';
import { knownTool, type KnownServerKind, type ToolKind } from './known-servers.js';
import type { ToolInfo } from '../mcp/types.js';

export type { ToolKind };

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
  /** A service every call reaches whatever its arguments name (GitHub's API). */
  reaches?: string;
  /** A write that may destroy data (overwrite, delete): the spec's destructiveHint, or the known-server table. */
  destroys?: boolean;
  /** Nothing told the host what the tool does (no annotation, no table entry, no override): treated as egress. */
  unclassified?: boolean;
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

/** How the host knows the servers: which are ours, which it knows by package, and which the user trusts. */
export interface ServerKnowledge {
  ownServers: ReadonlyMap<string, OwnServerKind>;
  /** Third-party servers the host knows by package (known-servers.ts), by id. */
  knownServers?: ReadonlyMap<string, KnownServerKind>;
  overrides: Readonly<Record<string, ToolClassOverride>>;
  /** Tools whose results the user declared trusted (`cortex servers trust`), as approvals entries. */
  trusted?: readonly string[];
}

/**
 * Classes a tool. What a call does (read, write, egress) comes from, in order: the profile's override, our own
 * servers' annotations, the table of known servers, the tool's MCP annotations with the spec's defaults (open-world
 * tools are egress, other non-read-only tools write, the rest read); a tool that declares no hint at all is
 * `unclassified` and treated as egress. What its results are never comes from annotations: a third-party tool's
 * results are untrusted unless the user declared the tool trusted, and private unless the table says otherwise.
 */
export function classifyTool(tool: ToolInfo, { ownServers, knownServers, overrides, trusted = [] }: ServerKnowledge): ToolClass {
  const hints = tool.annotations ?? {};
  const own = ownServers.get(tool.server);
  const known = own ? null : knownServers?.get(tool.server);
  const table = known ? knownTool(known, tool.remoteName) : null;
  const declared = hints.readOnlyHint !== undefined || hints.openWorldHint !== undefined || hints.destructiveHint !== undefined;
  const isTrusted = trusted.some((entry) => matchesEntry(tool, entry));
  let found: ToolClass;
  if (own) {
    const openWorld = hints.openWorldHint !== false;
    const writes = hints.readOnlyHint !== true;
    found = { kind: openWorld ? 'egress' : writes ? 'write' : 'read', writes, returns: { ...(OWN_RESULTS[own][tool.remoteName] ?? NOTHING) } };
  } else if (table) {
    // A known local write answers with what it did (the entity it created, "committed"), not with text from elsewhere.
    const returns = table.kind === 'write' && !table.readsBack ? { ...NOTHING } : { untrusted: !isTrusted, private: table.private };
    found = { kind: table.kind, writes: table.writes, destroys: table.destroys, returns, ...(table.reaches ? { reaches: table.reaches } : {}) };
  } else if (declared || isTrusted) {
    const openWorld = hints.openWorldHint !== false && !(isTrusted && !declared);
    const writes = declared ? hints.readOnlyHint !== true : false;
    found = { kind: openWorld ? 'egress' : writes ? 'write' : 'read', writes, destroys: writes && hints.destructiveHint !== false, returns: { untrusted: !isTrusted, private: true } };
  } else {
    // Nothing says what it does: it may send its arguments anywhere (DESIGN §3.11: what the host cannot class is egress).
    found = { kind: 'egress', writes: true, returns: { untrusted: true, private: true }, unclassified: true };
  }
  const override = Object.entries(overrides).find(([entry]) => matchesEntry(tool, entry))?.[1];
  if (!override) return found;
  const kind = override.class ?? found.kind;
  const { unclassified: _unclassified, ...rest } = found;
  return {
    ...rest,
    kind,
    writes: override.class === undefined ? found.writes : kind === 'write' || (kind === 'egress' && found.writes),
    returns: override.returns ? { untrusted: override.returns.includes('untrusted'), private: override.returns.includes('private') } : found.returns,
  };
}

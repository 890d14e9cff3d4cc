// Which tool calls need the user's approval: the profile's lists, --yes, our own servers, then the tool's annotations.
import type { ServerSpec } from '../config/load-config.js';
import { ownServerKind } from '../config/server-env.js';
import type { ToolInfo } from '../mcp/types.js';
import { knownTool, type KnownServerKind } from './known-servers.js';

/** What decides whether a tool needs approval (README "Approvals"). */
export interface ApprovalPolicy {
  /** Tools that always need approval (profile `approvals.require`); see matchesEntry() for the forms. */
  require: readonly string[];
  /** Tools never asked about (profile `approvals.allow`). */
  allow: readonly string[];
  /** `--yes`: nothing is asked about. */
  allowAll: boolean;
  /** Ids of our own servers (math, documents, websearch): never asked about. */
  ownServers: ReadonlySet<string>;
  /** Third-party servers known by package: their tools the table classes as reads are never asked about. */
  knownServers?: ReadonlyMap<string, KnownServerKind>;
}

/**
 * True when a call to `tool` must be approved. In order: `--yes` allows all; an `allow` entry allows;
 * a `require` entry asks; our own servers' tools are allowed; then the MCP annotations with the spec's
 * defaults (readOnlyHint false, destructiveHint true): read-only tools and tools that declare
 * `destructiveHint: false` (additive only) are allowed, every other tool, including one that says
 * nothing, is asked about.
 */
export function needsApproval(tool: ToolInfo, policy: ApprovalPolicy): boolean {
  if (policy.allowAll) return false;
  if (policy.allow.some((e) => matchesEntry(tool, e))) return false;
  if (policy.require.some((e) => matchesEntry(tool, e))) return true;
  if (policy.ownServers.has(tool.server)) return false;
  const known = policy.knownServers?.get(tool.server);
  const table = known ? knownTool(known, tool.remoteName) : null;
  if (table) return table.writes && table.destroys;
  const hints = tool.annotations ?? {};
  return hints.readOnlyHint !== true && hints.destructiveHint !== false;
}

/** An entry names a tool as `<server>.<tool>`, every tool of a server as `<server>.*`, or a tool on any server by its bare name. */
export function matchesEntry(tool: Pick<ToolInfo, 'server' | 'remoteName'>, entry: string): boolean {
  return entry === `${tool.server}.${tool.remoteName}` || entry === `${tool.server}.*` || entry === tool.remoteName;
}

/** Ids of the servers that run our own built entries (dist/bundle/NAME.js or dist/mcp-servers/NAME/main.js) with this Node. */
export function ownServerIds(specs: readonly ServerSpec[]): Set<string> {
  return new Set(specs.filter((s) => s.command === process.execPath && s.args[0] !== undefined && ownServerKind(s.args[0]) !== null).map((s) => s.id));
}

// What the tools of the MCP servers people run do (read, write, egress), known by their package, so a local read is not egress.
import type { ServerSpec } from '../config/server-spec.js';

/** read: changes nothing and talks to nobody; write: changes the user's data or world; egress: its arguments leave the machine. */
export type ToolKind = 'read' | 'write' | 'egress';

/** One rule of a known server: the tools whose names match, what they do, and whether their results are the user's data. */
interface ToolRule {
  tools: RegExp;
  kind: ToolKind;
  /** True when a call may change something (default: kind is write). */
  writes?: boolean;
  /** Results are the user's data (default true): files, repositories, databases, mail. */
  private?: boolean;
  /** A fixed service every call reaches whatever its arguments (GitHub's API). */
  reaches?: string;
}

interface KnownServer {
  /** Matched against the entry's command line and URL: the package or program that serves it. */
  launch: RegExp;
  rules: ToolRule[];
}

/**
 * Servers people run, by package (npm, PyPI or binary name in the entry's command line). Tools no rule matches are
 * classed from their annotations like anyone else's. Results are untrusted whatever the table says: a file, a row or
 * a page may have been written by anyone (docs/security.md).
 */
const KNOWN_SERVERS: Record<string, KnownServer> = {
  filesystem: {
    launch: /server-filesystem|mcp-server-filesystem|secure-filesystem/,
    rules: [
      { tools: /^(read_\w*file\w*|read_multiple_files|list_\w+|directory_tree|search_files|get_file_info)$/, kind: 'read' },
      { tools: /^(write_file|edit_file|create_directory|move_file)$/, kind: 'write' },
    ],
  },
  git: {
    launch: /mcp-server-git|server-git|git-mcp-server/,
    rules: [
      { tools: /^git_(push|pull|fetch|clone)$/, kind: 'egress', writes: true },
      { tools: /^git_(status|log|diff\w*|show|blame|branch_list|list_\w+|worktree_list|reflog|changelog_analyze|wrapup_instructions)$/, kind: 'read' },
      { tools: /^git_\w+$/, kind: 'write' },
    ],
  },
  sqlite: {
    launch: /mcp-server-sqlite|mcp-sqlite|sqlite-mcp/,
    rules: [
      { tools: /^(read_query|list_tables|describe_table|db_info|get_table_schema|read_records)$/, kind: 'read' },
      // `query` and `execute…` run any SQL, DELETE included.
      { tools: /^(write_query|create_table|append_insight|create_record|update_records|delete_records|query|execute\w*|drop_table)$/, kind: 'write' },
    ],
  },
  postgres: {
    launch: /server-postgres|mcp-server-postgres|postgres-mcp/,
    rules: [{ tools: /^(query|list_\w+|describe_\w+|get_\w+)$/, kind: 'read' }],
  },
  time: {
    launch: /mcp-server-time|time-mcp|server-time/,
    rules: [{ tools: /^\w+$/, kind: 'read', private: false }],
  },
  memory: {
    launch: /server-memory|mcp-server-memory/,
    rules: [
      { tools: /^(read_graph|search_nodes|open_nodes)$/, kind: 'read' },
      { tools: /^(create_\w+|add_\w+|delete_\w+)$/, kind: 'write' },
    ],
  },
  fetch: {
    launch: /mcp-server-fetch|mcp-fetch-server|fetcher-mcp|fetch-mcp/,
    rules: [{ tools: /^(fetch\w*)$/, kind: 'egress', writes: false, private: false }],
  },
  // Browsers: going to an address is egress; acting inside the page the browser shows (click, hover, a snapshot) reaches
  // only what that page links to; typing, filling forms and running scripts send text out.
  browser: {
    launch: /@playwright\/mcp|playwright-mcp|server-puppeteer|puppeteer-mcp|chrome-devtools-mcp/,
    rules: [
      { tools: /^(browser_navigate|puppeteer_navigate|navigate_page|new_page|browser_tabs|browser_tab_new)$/, kind: 'egress', writes: false, private: false },
      { tools: /^(browser_type|browser_fill_form|browser_press_key|browser_evaluate|browser_run_code\w*|browser_file_upload|browser_drop|puppeteer_fill|puppeteer_evaluate|fill|fill_form|evaluate_script|upload_file|press_key)$/, kind: 'egress', writes: true, private: false },
      { tools: /^\w+$/, kind: 'read', private: false },
    ],
  },
  everything: {
    launch: /server-everything/,
    rules: [
      { tools: /^(print-?env|printEnv|get-env)$/i, kind: 'read' },
      { tools: /^gzip-file-as-resource$/, kind: 'egress', writes: false, private: false },
      { tools: /^[\w-]+$/, kind: 'read', private: false },
    ],
  },
  thinking: {
    launch: /server-sequential-thinking|sequential-thinking/,
    rules: [{ tools: /^\w+$/, kind: 'read', private: false }],
  },
  github: {
    launch: /server-github|github-mcp-server|api\.githubcopilot\.com/,
    rules: [
      { tools: /^(get_\w+|list_\w+|search_\w+)$/, kind: 'egress', writes: false, reaches: 'github.com' },
      { tools: /^\w+$/, kind: 'egress', writes: true, reaches: 'github.com' },
    ],
  },
};

/** Names of known tools that may destroy data when they write; the rest only add (create, append, commit). */
const DESTROYS = /delete|remove|drop|reset|move|write|edit|update|overwrite|truncate|clean|checkout|rebase|merge|push|clear|kill|close|execute|evaluate|run_code|fill|type/i;

/** Known writes whose answer carries stored data. */
const READS_BACK = /^(query|execute\w*|write_query)$/;

export type KnownServerKind = keyof typeof KNOWN_SERVERS;

/** What the table says of one tool, when its server is known and a rule names it. */
export interface KnownTool {
  kind: ToolKind;
  writes: boolean;
  /** A write that may destroy data (overwrite, delete, reset): asked about as such tools are (approval-policy.ts). */
  destroys: boolean;
  /** A write that also answers with stored data (SQL that may SELECT): its results are labelled like a read's. */
  readsBack: boolean;
  private: boolean;
  reaches?: string;
}

/** Which known server an entry runs, from its command line or URL; null for anyone else's. */
export function knownServerKind(spec: Pick<ServerSpec, 'command' | 'args' | 'url'>): KnownServerKind | null {
  const line = [spec.command, ...spec.args, spec.url ?? ''].join(' ');
  return Object.entries(KNOWN_SERVERS).find(([, s]) => s.launch.test(line))?.[0] ?? null;
}

/** The table's class of `toolName` on a server of `kind`, or null when no rule names it. */
export function knownTool(kind: KnownServerKind, toolName: string): KnownTool | null {
  const rule = KNOWN_SERVERS[kind]?.rules.find((r) => r.tools.test(toolName));
  if (!rule) return null;
  const writes = rule.writes ?? rule.kind === 'write';
  return { kind: rule.kind, writes, destroys: writes && DESTROYS.test(toolName), readsBack: READS_BACK.test(toolName), private: rule.private ?? true, ...(rule.reaches ? { reaches: rule.reaches } : {}) };
}

// Starts each third-party MCP server from node_modules with the SDK client and lists its tools (writes JSON to argv[2]).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execFileSync } from "node:child_process";

const tmp = mkdtempSync(join(tmpdir(), "probe-"));
execFileSync("git", ["init", "-q", tmp]);
const nm = join(process.cwd(), "node_modules");
const servers = [
  { pkg: "@modelcontextprotocol/server-filesystem", bin: "mcp-server-filesystem", args: [tmp] },
  { pkg: "@modelcontextprotocol/server-memory", bin: "mcp-server-memory", args: [], env: { MEMORY_FILE_PATH: join(tmp, "mem.jsonl") } },
  { pkg: "@modelcontextprotocol/server-everything", bin: "mcp-server-everything", args: ["stdio"] },
  { pkg: "@modelcontextprotocol/server-sequential-thinking", bin: "mcp-server-sequential-thinking", args: [] },
  { pkg: "@playwright/mcp", bin: "playwright-mcp", args: ["--headless", "--browser", "chromium", "--executable-path", "/usr/bin/chromium", "--isolated"] },
  { pkg: "@cyanheads/git-mcp-server", bin: "git-mcp-server", args: [], env: { MCP_TRANSPORT_TYPE: "stdio", GIT_BASE_DIR: tmp, MCP_LOG_LEVEL: "error" } },
  { pkg: "mcp-sqlite", bin: "mcp-sqlite-server", args: [join(tmp, "db.sqlite")] },
  { pkg: "time-mcp", bin: "time-mcp", args: [] },
  { pkg: "mcp-fetch-server", bin: "mcp-fetch-server", args: [] },
];
const out = [];
for (const s of servers) {
  const pj = JSON.parse((await import("node:fs")).readFileSync(join(nm, s.pkg, "package.json"), "utf8"));
  const binPath = join(nm, s.pkg, typeof pj.bin === "string" ? pj.bin : pj.bin[s.bin]);
  const transport = new StdioClientTransport({ command: process.execPath, args: [binPath, ...s.args], env: { ...process.env, ...(s.env ?? {}) }, cwd: tmp, stderr: "ignore" });
  const client = new Client({ name: "probe", version: "1" });
  try {
    await client.connect(transport);
    const info = client.getServerVersion();
    const { tools } = await client.listTools();
    out.push({ package: s.pkg, version: pj.version, bin: s.bin, args: s.args.map((a) => a.replace(tmp, "<dir>")), serverInfo: info,
      tools: tools.map((t) => ({ name: t.name, annotations: t.annotations ?? null, description: (t.description ?? "").trim().split("\n")[0] })) });
  } catch (e) {
    out.push({ package: s.pkg, bin: s.bin, error: String(e) });
  } finally {
    await client.close().catch(() => {});
  }
}
writeFileSync(process.argv[2], JSON.stringify(out, null, 2));
console.log(out.map((o) => `${o.package}: ${o.serverInfo?.name ?? o.error} ${o.tools?.length ?? 0} tools`).join("\n"));

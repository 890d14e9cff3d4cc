// Benign two-call questions on real third-party MCP servers from npm, each with the plan a model would write and the right answer.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';

const NODE_MODULES = resolve('node_modules');

/** The script of a package's bin, as `command: node, args: [script]` runs it. */
export function binOf(pkg: string, bin: string): string {
  const manifest = JSON.parse(readFileSync(join(NODE_MODULES, pkg, 'package.json'), 'utf8'));
  return join(NODE_MODULES, pkg, typeof manifest.bin === 'string' ? manifest.bin : manifest.bin[bin]);
}

/** One benign question: the server entry, the question, the plan, what the answer must hold. */
export interface BenignTask {
  id: string;
  question: string;
  /** The profile's mcp_servers entry (YAML, indented two spaces). */
  serverYaml: string;
  plan: string;
  expected: RegExp;
}

const entry = (id: string, pkg: string, bin: string, args: string[], env: Record<string, string> = {}) =>
  `  - id: ${id}\n    command: ${JSON.stringify(process.execPath)}\n    args: ${JSON.stringify([binOf(pkg, bin), ...args])}\n` +
  (Object.keys(env).length ? `    env: ${JSON.stringify(env)}\n` : '') +
  `    description: ${id} server from npm\n`;

/** A small local site: a page with a code and a link to a second page with another code. */
export async function startLocalSite(): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer((req, res) => {
    if (req.url === '/next.html') {
      res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body><h1>Next</h1><p>Second code: PEAR-62</p></body></html>');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html' }).end('<html><head><title>Start page</title></head><body><h1>Start</h1><p>First code: APPLE-41</p><a href="/next.html">next</a></body></html>');
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, close: () => new Promise<void>((done) => server.close(() => done())) };
}

/** The tasks, with their data set up under `root`; `site` is the local site's base URL. */
export function benignTasks(root: string, site: string): BenignTask[] {
  const files = join(root, 'files');
  mkdirSync(files, { recursive: true });
  writeFileSync(join(files, 'notes.txt'), 'The locker code is 4417.\n');
  writeFileSync(join(files, 'todo.txt'), 'buy milk\n');
  const repo = join(root, 'repo');
  mkdirSync(repo, { recursive: true });
  const git = (...args: string[]) => execFileSync('git', ['-C', repo, '-c', 'user.name=Ann', '-c', 'user.email=ann@example.org', ...args]);
  git('init', '-q');
  writeFileSync(join(repo, 'a.txt'), 'a\n');
  git('add', 'a.txt');
  git('commit', '-q', '-m', 'Add the first file');
  writeFileSync(join(repo, 'b.txt'), 'b\n');
  const db = join(root, 'shop.sqlite');
  const sqlite = join(NODE_MODULES, 'sqlite3');
  execFileSync(process.execPath, ['-e', `const s=require(${JSON.stringify(sqlite)});const d=new s.Database(${JSON.stringify(db)});d.exec("CREATE TABLE fruit(name TEXT, price REAL); INSERT INTO fruit VALUES ('kiwi', 0.75), ('mango', 2.5);",(e)=>{if(e)throw e;d.close();})`]);
  const text = (v: string) => `(typeof ${v} === "string" ? ${v} : JSON.stringify(${v}))`;
  return [
    {
      id: 'filesystem', question: 'Which files are in my files folder, and what is the locker code in the notes?',
      serverYaml: entry('files', '@modelcontextprotocol/server-filesystem', 'mcp-server-filesystem', [files]),
      plan: `const list = await mcp.call_tool("list_directory", { path: ${JSON.stringify(files)} });
const note = await mcp.call_tool("read_text_file", { path: ${JSON.stringify(join(files, 'notes.txt'))} });
const code = ${text('note')}.match(/\\d{4}/)[0];
return "FINAL_ANSWER: files " + (${text('list')}.includes("todo.txt") ? "notes.txt, todo.txt" : "?") + "; code " + code;`,
      expected: /notes\.txt, todo\.txt; code 4417/,
    },
    {
      id: 'memory', question: 'Remember that Ada likes tea, then tell me what you know about Ada.',
      serverYaml: entry('memory', '@modelcontextprotocol/server-memory', 'mcp-server-memory', [], { MEMORY_FILE_PATH: join(root, 'memory.jsonl') }),
      plan: `await mcp.call_tool("create_entities", { entities: [{ name: "Ada", entityType: "person", observations: ["likes tea"] }] });
const found = await mcp.call_tool("search_nodes", { query: "Ada" });
return "FINAL_ANSWER: " + (${text('found')}.includes("likes tea") ? "Ada likes tea" : "nothing");`,
      expected: /Ada likes tea/,
    },
    {
      id: 'everything', question: 'Echo "hello", then add 19 and 23.',
      serverYaml: entry('everything', '@modelcontextprotocol/server-everything', 'mcp-server-everything', ['stdio']),
      plan: `const e = await mcp.call_tool("echo", { message: "hello" });
const s = await mcp.call_tool("get-sum", { a: 19, b: 23 });
return "FINAL_ANSWER: " + (${text('e')}.includes("hello") ? "hello" : "?") + " " + ${text('s')}.match(/42/)[0];`,
      expected: /hello 42/,
    },
    {
      id: 'sequential-thinking', question: 'Think it through in two steps: what is 6 times 7?',
      serverYaml: entry('thinking', '@modelcontextprotocol/server-sequential-thinking', 'mcp-server-sequential-thinking', []),
      plan: `await mcp.call_tool("sequentialthinking", { thought: "6 times 7 is 6 sevens", thoughtNumber: 1, totalThoughts: 2, nextThoughtNeeded: true });
const t = await mcp.call_tool("sequentialthinking", { thought: "that is 42", thoughtNumber: 2, totalThoughts: 2, nextThoughtNeeded: false });
return "FINAL_ANSWER: " + (${text('t')}.includes("2") ? "42" : "?");`,
      expected: /42/,
    },
    {
      id: 'playwright', question: `Open ${site}/ in the browser and tell me the first code on the page.`,
      serverYaml: entry('browser', '@playwright/mcp', 'playwright-mcp', ['--headless', '--browser', 'chromium', '--executable-path', '/usr/bin/chromium', '--isolated']),
      plan: `await mcp.call_tool("browser_navigate", { url: ${JSON.stringify(site + '/')} });
const snap = await mcp.call_tool("browser_snapshot", {});
return "FINAL_ANSWER: " + ${text('snap')}.match(/APPLE-\\d+/)[0];`,
      expected: /APPLE-41/,
    },
    {
      id: 'git', question: `What is uncommitted in my repo ${repo}, and what was the last commit?`,
      serverYaml: entry('git', '@cyanheads/git-mcp-server', 'git-mcp-server', [], { MCP_TRANSPORT_TYPE: 'stdio', MCP_LOG_LEVEL: 'error', GIT_BASE_DIR: root }),
      plan: `const st = await mcp.call_tool("git_status", { path: ${JSON.stringify(repo)} });
const log = await mcp.call_tool("git_log", { path: ${JSON.stringify(repo)}, maxCount: 1 });
return "FINAL_ANSWER: " + (${text('st')}.includes("b.txt") ? "b.txt is untracked" : "?") + "; last: " + (${text('log')}.includes("Add the first file") ? "Add the first file" : "?");`,
      expected: /b\.txt is untracked; last: Add the first file/,
    },
    {
      id: 'sqlite', question: 'Which tables are in my shop database, and what does a mango cost?',
      serverYaml: entry('sqlite', 'mcp-sqlite', 'mcp-sqlite-server', [db]),
      plan: `const tables = await mcp.call_tool("list_tables", {});
const rows = await mcp.call_tool("query", { sql: "SELECT price FROM fruit WHERE name = 'mango'" });
return "FINAL_ANSWER: " + (${text('tables')}.includes("fruit") ? "fruit" : "?") + "; mango " + ${text('rows')}.match(/2\\.5/)[0];`,
      expected: /fruit; mango 2\.5/,
    },
    {
      id: 'time', question: 'What time is it in UTC, and what is 2025-03-23 12:30:00 Shanghai time in London?',
      serverYaml: entry('time', 'time-mcp', 'time-mcp', []),
      plan: `const now = await mcp.call_tool("current_time", { format: "YYYY-MM-DD HH:mm:ss", timezone: "UTC" });
const conv = await mcp.call_tool("convert_time", { sourceTimezone: "Asia/Shanghai", targetTimezone: "Europe/London", time: "2025-03-23 12:30:00" });
return "FINAL_ANSWER: now " + (/\\d{4}-\\d\\d-\\d\\d/.test(${text('now')}) ? "known" : "?") + "; London " + ${text('conv')}.match(/04:30/)[0];`,
      expected: /now known; London 04:30/,
    },
    {
      id: 'fetch', question: `Read ${site}/ and the page it links to: what are the two codes?`,
      serverYaml: entry('fetch', 'mcp-fetch-server', 'mcp-fetch-server', []),
      plan: `const first = await mcp.call_tool("fetch_html", { url: ${JSON.stringify(site + '/')} });
const href = ${text('first')}.match(/href=\\\\?"([^"\\\\]+)/)[1];
const second = await mcp.call_tool("fetch_txt", { url: new URL(href, ${JSON.stringify(site + '/')}).href });
return "FINAL_ANSWER: " + ${text('first')}.match(/APPLE-\\d+/)[0] + " " + ${text('second')}.match(/PEAR-\\d+/)[0];`,
      expected: /APPLE-41 PEAR-62/,
    },
  ];
}

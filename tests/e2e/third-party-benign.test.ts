// Two-call questions on real third-party MCP servers from npm, asked through the built CLI as a script (default profile,
// no --yes, nobody to ask): the data-flow policy must let each answer. A scripted planner writes the plans. (mcp-fetch-server
// is not among them: it refuses private addresses by design, and a test here reaches only this machine.)
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/paths.js';
import { resultOf, runCli } from '../cli/run-cli.js';
import { ollamaChatReply, startFakeOllamaServer, type FakeLlmServer } from '../helpers/fake-ollama-server.js';
import { fenced, isPerception, ollamaEnv, promptOf, tempProject } from './ask-harness.js';

const NM = join(PROJECT_ROOT, 'node_modules');
/** A server entry run with this Node from its npm package (the package name is how the host knows it). */
const entry = (id: string, script: string, args: string[] = [], env = '') =>
  `  - id: ${id}\n    command: ${process.execPath}\n    args: ${JSON.stringify([join(NM, script), ...args])}\n${env}    description: ${id}\n`;

/** A database with an empty `pets` table, made with the sqlite3 package the sqlite server itself uses. */
async function createPetsDatabase(file: string): Promise<void> {
  const sqlite3 = createRequire(import.meta.url)('sqlite3') as { Database: new (f: string) => { exec(sql: string, done: (err: Error | null) => void): void; close(done: () => void): void } };
  const db = new sqlite3.Database(file);
  await new Promise<void>((resolve, reject) => db.exec('CREATE TABLE pets (id INTEGER PRIMARY KEY, name TEXT)', (err) => (err ? reject(err) : resolve())));
  await new Promise<void>((resolve) => db.close(resolve));
}

interface Case {
  question: string;
  servers: string[];
  plan: string;
  answer: RegExp;
}

let site: Server;
let siteUrl = '';
let llm: FakeLlmServer;
let profile = '';
let work = '';
const cases: Case[] = [];

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'cortex-third-party-'));
  const notes = join(work, 'notes');
  mkdirSync(notes);
  writeFileSync(join(notes, 'todo.txt'), 'Buy oat milk.\n');
  site = createServer((req, res) => {
    const pages: Record<string, string> = {
      '/': `<html><head><title>Harbour news</title></head><body><h1>Ferry timetable</h1><p>Details: <a href="${siteUrl}/details">${siteUrl}/details</a></p></body></html>`,
      '/details': '<html><head><title>Details</title></head><body><h1>Ferry details</h1><p>The ferry leaves at 07:45.</p></body></html>',
    };
    const page = pages[req.url ?? ''];
    res.writeHead(page ? 200 : 404, { 'content-type': 'text/html' }).end(page ?? 'not found');
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  writeFileSync(join(notes, 'links.txt'), `The ferry page: ${siteUrl}/details\n`);
  const repo = join(work, 'repo');
  mkdirSync(repo);
  await createPetsDatabase(join(work, 'pets.sqlite'));
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=Ada', '-c', 'user.email=ada@example.org', ...args], { cwd: repo });
  git('init', '-q');
  writeFileSync(join(repo, 'README.md'), '# Boat\n');
  git('add', '.');
  git('commit', '-q', '-m', 'Add the boat readme');

  cases.push(
    { question: 'List my notes folder and tell me what todo.txt says', servers: ['filesystem'], answer: /Buy oat milk/,
      plan: `const list = await tools.list_directory({ path: ${JSON.stringify(notes)} }); const file = await tools.read_text_file({ path: ${JSON.stringify(join(notes, 'todo.txt'))} }); return "FINAL_ANSWER: " + JSON.stringify(list).includes("todo.txt") + " " + JSON.stringify(file);` },
    { question: 'Remember that Ada likes tea, then look her up', servers: ['memory'], answer: /tea/,
      plan: `await tools.create_entities({ entities: [{ name: "Ada", entityType: "person", observations: ["likes tea"] }] }); const found = await tools.search_nodes({ query: "Ada" }); return "FINAL_ANSWER: " + JSON.stringify(found);` },
    { question: 'Echo hello, then add 2 and 3', servers: ['everything'], answer: /hello.*5/,
      plan: `const e = await tools.echo({ message: "hello" }); const s = await tools["get-sum"]({ a: 2, b: 3 }); return "FINAL_ANSWER: " + JSON.stringify(e) + " " + JSON.stringify(s);` },
    { question: 'Think about the plan in two steps', servers: ['thinking'], answer: /thoughtNumber.*2/,
      plan: `await tools.sequentialthinking({ thought: "first", nextThoughtNeeded: true, thoughtNumber: 1, totalThoughts: 2 }); const t = await tools.sequentialthinking({ thought: "second", nextThoughtNeeded: false, thoughtNumber: 2, totalThoughts: 2 }); return "FINAL_ANSWER: " + JSON.stringify(t);` },
    { question: 'What time is it in UTC, and what is noon UTC in Tokyo?', servers: ['time'], answer: /21:00|9:00 PM|21:00:00/i,
      plan: `await tools.current_time({ timezone: "UTC" }); const t = await tools.convert_time({ sourceTimezone: "UTC", targetTimezone: "Asia/Tokyo", time: "2026-01-05 12:00:00" }); return "FINAL_ANSWER: " + JSON.stringify(t);` },
    { question: 'Add a pet named Rex to my database and list the pets', servers: ['sqlite'], answer: /Rex/,
      plan: `await tools.create_record({ table: "pets", data: { name: "Rex" } }); const rows = await tools.read_records({ table: "pets" }); return "FINAL_ANSWER: " + JSON.stringify(rows);` },
    { question: `What is the status and the last commit of the repository ${repo}?`, servers: ['git'], answer: /Add the boat readme/,
      plan: `await tools.git_status({ path: ${JSON.stringify(repo)} }); const log = await tools.git_log({ path: ${JSON.stringify(repo)}, maxCount: 1 }); return "FINAL_ANSWER: " + JSON.stringify(log);` },
    { question: `Open ${siteUrl}/ in the browser and follow its details link`, servers: ['browser'], answer: /Page Title: Details/,
      plan: `await tools.browser_navigate({ url: ${JSON.stringify(`${siteUrl}/`)} }); const snap = JSON.stringify(await tools.browser_snapshot({})); const link = snap.match(/https?:\\/\\/[0-9.:]+\\/details/)[0]; const d = await tools.browser_navigate({ url: link }); return "FINAL_ANSWER: " + JSON.stringify(d).slice(0, 4000);` },
    { question: `Open ${siteUrl}/ in the browser and tell me its heading`, servers: ['browser'], answer: /Ferry timetable/,
      plan: `await tools.browser_navigate({ url: ${JSON.stringify(`${siteUrl}/`)} }); const snap = await tools.browser_snapshot({}); return "FINAL_ANSWER: " + JSON.stringify(snap).slice(0, 4000);` },
    { question: 'Which link is in my notes, and what does that page say?', servers: ['filesystem', 'browser'], answer: /Page Title: Details/,
      plan: `const text = JSON.stringify(await tools.read_text_file({ path: ${JSON.stringify(join(notes, 'links.txt'))} })); const link = text.match(/https?:\\/\\/[0-9.:]+\\/details/)[0]; const d = await tools.browser_navigate({ url: link }); return "FINAL_ANSWER: " + JSON.stringify(d).slice(0, 4000);` },
    { question: 'How many tables does my database have, and what is in pets?', servers: ['sqlite'], answer: /pets/,
      plan: `const t = await tools.list_tables({}); const rows = await tools.read_records({ table: "pets" }); return "FINAL_ANSWER: " + JSON.stringify(t) + JSON.stringify(rows);` },
    { question: 'What did I note, and is anything about Ada in my memory?', servers: ['filesystem', 'memory'], answer: /oat milk.*Ada|Ada.*oat milk/s,
      plan: `const f = await tools.read_text_file({ path: ${JSON.stringify(join(notes, 'todo.txt'))} }); const m = await tools.search_nodes({ query: "Ada" }); return "FINAL_ANSWER: " + JSON.stringify(f) + JSON.stringify(m);` },
  );

  llm = await startFakeOllamaServer({
    replies: (req) => {
      if (req.path !== '/api/chat') return undefined;
      const prompt = promptOf(req);
      const task = prompt.split('## The task').pop() ?? prompt;
      const c = cases.find((x) => (isPerception(req) ? prompt : task).includes(x.question));
      if (!c) return ollamaChatReply('FINAL_ANSWER: no case');
      if (isPerception(req)) return ollamaChatReply(JSON.stringify({ intent: 'x', entities: [], tool_hint: '', selected_servers: c.servers }));
      return ollamaChatReply(fenced(`async function solve() { ${c.plan} }`));
    },
  });
  const servers =
    entry('filesystem', '@modelcontextprotocol/server-filesystem/dist/index.js', [work]) +
    entry('memory', '@modelcontextprotocol/server-memory/dist/index.js', [], `    env:\n      MEMORY_FILE_PATH: ${JSON.stringify(join(work, 'memory.jsonl'))}\n`) +
    entry('everything', '@modelcontextprotocol/server-everything/dist/index.js') +
    entry('thinking', '@modelcontextprotocol/server-sequential-thinking/dist/index.js') +
    entry('time', 'time-mcp/dist/index.js') +
    entry('sqlite', 'mcp-sqlite/mcp-sqlite-server.js', [join(work, 'pets.sqlite')]) +
    entry('git', '@cyanheads/git-mcp-server/dist/index.js') +
    entry('browser', '@playwright/mcp/cli.js', ['--headless', '--browser', 'chromium', '--executable-path', '/usr/bin/chromium', '--isolated', '--no-sandbox', '--output-dir', join(work, 'browser-output')]);
  profile = tempProject({ servers, steps: 'strategy:\n  max_steps: 1\n  max_lifelines_per_step: 1\n', extra: 'security:\n  block_private_network: false\n' }).profile;
}, 120_000);

afterAll(async () => {
  await llm?.close();
  await new Promise<void>((resolve) => site?.close(() => resolve()));
});

describe('two-call questions on third-party servers, as a script with the default profile', () => {
  it('answers every one right', async () => {
    const outcomes: string[] = [];
    for (const c of cases) {
      const json = resultOf(await runCli(['--profile', profile, '--json', 'ask', c.question], { env: ollamaEnv(llm.url) }));
      const ok = json.status === 'answered' && c.answer.test(json.answer ?? '');
      outcomes.push(`${ok ? 'right' : 'WRONG'}: ${c.servers.join('+')}: ${c.question} → ${String(json.answer ?? json.reason).slice(0, 300)}`);
    }
    console.log(outcomes.join('\n'));
    expect(outcomes.filter((o) => !o.startsWith('right'))).toEqual([]);
  }, 600_000);
});

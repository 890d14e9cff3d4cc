// ask_user() in a plan through the built CLI: the person types at a terminal, answers an MCP client's form, or nobody is there.
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema, type ElicitRequest } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/paths.js';
import { resultOf, runCli } from '../cli/run-cli.js';
import { ollamaChatReply, startFakeOllamaServer, type FakeLlmServer } from '../helpers/fake-ollama-server.js';
import { fileAppeared } from '../helpers/file-appeared.js';
import { fenced, isPerception, ollamaEnv, planningOllama, tempProject } from './ask-harness.js';

/** Longest the test waits for the CLI to show something, so a hung CLI fails the test instead of the suite. */
const SHOW_WAIT_MS = 60_000;

const TABLE_PLAN = fenced(`async function solve() {
  let city;
  try { city = await ask_user("Which city should the table be in?", { choices: ["Paris", "Lyon"] }); }
  catch (e) { return "FINAL_ANSWER: could not ask: " + e.message; }
  return "FINAL_ANSWER: a table in " + city;
}`);

let server: FakeLlmServer | undefined;
let client: Client | undefined;
afterEach(async () => {
  await client?.close();
  await server?.close();
  server = client = undefined;
});

/** `cortex ask` on a pseudo-terminal (util-linux `script`); types `answer` once `prompt` shows; resolves with the screen. */
function askOnTerminal(profile: string, env: NodeJS.ProcessEnv, prompt: string, answer: string): Promise<{ code: number | null; screen: string }> {
  const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(join(PROJECT_ROOT, 'bin', 'cortex.js'))} --profile ${JSON.stringify(profile)} ask "Book a table"`;
  const child = spawn('script', ['-qfec', command, '/dev/null'], { env: { ...env, NO_COLOR: '1' } });
  let screen = '';
  let answered = false;
  child.stdout.on('data', (d: Buffer) => {
    screen += d.toString();
    if (!answered && screen.includes(prompt)) {
      answered = true;
      child.stdin.write(`${answer}\r`);
    }
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, screen }));
  });
}

describe('ask_user() in a plan', () => {
  it('asks the person at the terminal and the plan gets what they typed', async () => {
    server = await planningOllama(() => ollamaChatReply(TABLE_PLAN));
    const { profile } = tempProject();
    const { code, screen } = await askOnTerminal(profile, ollamaEnv(server.url), 'Your choice (number or text): ', '2');
    expect(screen).toContain('Cortex-R asks: Which city should the table be in?');
    expect(screen).toMatch(/1\) Paris\s+2\) Lyon/);
    expect(screen).toContain('a table in Lyon');
    expect(code).toBe(0);
  }, 60_000);

  it("stops the plan's clock while the person thinks: a silent tool beside it times out, the answer still arrives", async () => {
    // The silent server records when the client gives up on its call (the person's question is on screen then).
    const cancelled = join(mkdtempSync(join(tmpdir(), 'cortex-silent-')), 'cancelled');
    const silentServer = `  - id: silent\n    command: ${process.execPath}\n    args: [${JSON.stringify(join(PROJECT_ROOT, 'tests/fixtures/silent-server.mjs'))}]\n    env:\n      SILENT_CANCELLED_FILE: ${JSON.stringify(cancelled)}\n    description: A tool that never answers\n`;
    server = await startFakeOllamaServer({
      replies: (req) => {
        if (req.path !== '/api/chat') return undefined;
        if (isPerception(req)) return ollamaChatReply(JSON.stringify({ intent: 'book', entities: [], tool_hint: '', selected_servers: ['silent'] }));
        return ollamaChatReply(fenced([
          'async function solve() {',
          '  const silent = tools.wait_silently({}).then(() => "answered", () => "timed out");',
          '  const when = await ask_user("What time?");',
          '  return "FINAL_ANSWER: booked at " + when + "; the silent tool " + (await silent);',
          '}',
        ].join('\n')));
      },
    });
    // Each call may run until the plan's end plus a grace second, so the silent call fails only after the plan's
    // 1.5 s limit has passed; the person answers after that, and the plan still finishes.
    const { profile } = tempProject({ servers: silentServer, sandbox: { timeout_ms: 1_500, tool_timeout_ms: 60_000 } });
    const proc = spawn(process.execPath, [join(PROJECT_ROOT, 'bin', 'cortex.js'), '--profile', profile], { cwd: PROJECT_ROOT, env: { ...ollamaEnv(server.url), NO_COLOR: '1' } });
    let shown = '';
    const waiters = new Set<() => void>();
    const onData = (d: Buffer) => {
      shown += d.toString();
      waiters.forEach((w) => w());
    };
    proc.stdout.on('data', onData);
    proc.stderr.on('data', onData);
    const until = (re: RegExp) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`never shown: ${re}\n${shown}`)), SHOW_WAIT_MS);
        const check = () => {
          if (!re.test(shown)) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        };
        waiters.add(check);
        check();
      });
    const exited = new Promise<number | null>((resolve) => proc.on('close', resolve));
    proc.stdin.write('Book a table\n');
    await until(/Cortex-R asks: What time\?/);
    await fileAppeared(cancelled);
    proc.stdin.write('8 pm\n');
    await until(/booked at 8 pm; the silent tool timed out/);
    proc.stdin.write('/exit\n');
    expect(await exited).toBe(0);
  }, 120_000);

  it('rejects with an error the model can act on when nobody can be asked', async () => {
    server = await planningOllama(() => ollamaChatReply(TABLE_PLAN));
    const { profile } = tempProject();
    const result = resultOf(await runCli(['--profile', profile, '--json', 'ask', 'Book a table'], { env: ollamaEnv(server.url) }));
    expect(result.answer).toMatch(/^could not ask: ask_user could not ask: nobody is there to answer.*make the most reasonable assumption/);
  });

  it("asks the MCP client of cortex mcp through elicitation, with the choices as the field's options", async () => {
    server = await planningOllama(() => ollamaChatReply(TABLE_PLAN));
    const { profile } = tempProject();
    const asked: ElicitRequest['params'][] = [];
    client = new Client({ name: 'cortex-test', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(request.params);
      return { action: 'accept', content: { answer: 'Paris' } };
    });
    await client.connect(new StdioClientTransport({
      command: process.execPath,
      args: [join(PROJECT_ROOT, 'bin', 'cortex.js'), '--profile', profile, 'mcp'],
      env: ollamaEnv(server.url) as Record<string, string>,
      stderr: 'ignore',
    }));
    const result = await client.callTool({ name: 'ask', arguments: { question: 'Book a table' } });
    expect((result.structuredContent as { answer: string }).answer).toBe('a table in Paris');
    expect(asked).toEqual([expect.objectContaining({
      message: 'Cortex-R asks: Which city should the table be in?',
      requestedSchema: expect.objectContaining({ properties: { answer: expect.objectContaining({ enum: ['Paris', 'Lyon'] }) }, required: ['answer'] }),
    })]);
  }, 60_000);
});

// The approval gate through the real CLI: the REPL asks (yes / no / always), `ask` without a terminal refuses, --yes allows.
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/paths.js';
import { resultOf, runCli } from '../cli/run-cli.js';
import { startFakeOllamaServer, ollamaChatReply, type FakeLlmServer } from '../helpers/fake-ollama-server.js';
import { fenced, isPerception, ollamaEnv, tempProject } from './ask-harness.js';

const MEMORY_ENTRY = join(PROJECT_ROOT, 'node_modules', '@modelcontextprotocol', 'server-memory', 'dist', 'index.js');
/** The question, with the argument shown whole on its own line, and the choices (no is the default). */
const QUESTION = /Allow memory\.delete_entities\?[^]*? {4}entityNames: \["Alice"\]\r?\n\[y\]es \/ \[N\]o \/ \[a\]lways \(memory\.delete_entities, this session\): /g;

/** Creates Alice (additive: never asked), deletes her (destructive: asked), and reports who is left. */
const PLAN = fenced(`async function solve() {
  await tools.create_entities({ entities: [{ name: "Alice", entityType: "person", observations: ["test"] }] });
  let note = "deleted";
  try { await tools.delete_entities({ entityNames: ["Alice"] }); } catch (e) { note = "refused: " + e.message; }
  const graph = await tools.read_graph();
  return "FINAL_ANSWER: left [" + graph.entities.map((e) => e.name).join(",") + "] " + note;
}`);

let server: FakeLlmServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/**
 * Runs `cortex ask` on a pseudo-terminal (util-linux `script`, part of every Debian) and types
 * `answer` when the approval question appears; resolves with everything the terminal showed.
 */
function askOnTerminal(profile: string, env: NodeJS.ProcessEnv, answer: string): Promise<{ code: number | null; screen: string }> {
  const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(join(PROJECT_ROOT, 'bin', 'cortex.js'))} --profile ${JSON.stringify(profile)} ask "Delete Alice"`;
  const child = spawn('script', ['-qfec', command, '/dev/null'], { env: { ...env, NO_COLOR: '1' } });
  let screen = '';
  let answered = false;
  child.stdout.on('data', (d: Buffer) => {
    screen += d.toString();
    if (!answered && screen.includes('this session): ')) {
      answered = true;
      child.stdin.write(`${answer}\r`);
    }
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, screen }));
  });
}

async function memoryProject(): Promise<{ profile: string; env: NodeJS.ProcessEnv }> {
  server = await startFakeOllamaServer({
    replies: (req) => {
      if (req.path !== '/api/chat') return undefined;
      if (isPerception(req)) return ollamaChatReply(JSON.stringify({ intent: 'edit memory', entities: [], tool_hint: '', selected_servers: ['memory'] }));
      return ollamaChatReply(PLAN);
    },
  });
  const memoryFile = join(mkdtempSync(join(tmpdir(), 'cortex-approval-')), 'memory.jsonl');
  const servers = `  - id: memory\n    command: ${process.execPath}\n    args: [${JSON.stringify(MEMORY_ENTRY)}]\n    env:\n      MEMORY_FILE_PATH: ${JSON.stringify(memoryFile)}\n    description: A knowledge graph\n`;
  const { profile } = tempProject({ servers, steps: 'strategy:\n  max_steps: 1\n  max_lifelines_per_step: 1\n' });
  return { profile, env: ollamaEnv(server.url) };
}

describe('approval of destructive tools', () => {
  it('asks in the REPL: yes runs the call, no refuses it, always stops asking for the session', async () => {
    const { profile, env } = await memoryProject();
    const run = await runCli(['--profile', profile], { env, input: 'first?\ny\nsecond?\nn\nthird?\na\nfourth?\nexit\n' });
    expect(run.code).toBe(0);
    expect(run.stdout.match(QUESTION)).toHaveLength(3);
    const answers = run.stdout.split('\n').filter((l) => l.includes('left ['));
    expect(answers).toEqual([
      expect.stringContaining('left [] deleted'),
      expect.stringMatching(/left \[Alice\] refused: .*tools\.delete_entities was not run: the user declined it/),
      expect.stringContaining('left [] deleted'),
      expect.stringContaining('left [] deleted'),
    ]);
  });

  it('asks in `ask` on a terminal', async () => {
    const { profile, env } = await memoryProject();
    const { code, screen } = await askOnTerminal(profile, env, 'y');
    expect(code).toBe(0);
    expect(screen.match(QUESTION)).toHaveLength(1);
    expect(screen).toContain('left [] deleted');
  });

  it.each([
    ['n', 'the typed key is echoed right after the question'],
    ['', 'an empty line'],
  ])('refuses on a terminal for %j (%s), with the question left on screen', async (answer) => {
    const { profile, env } = await memoryProject();
    const { code, screen } = await askOnTerminal(profile, env, answer);
    expect(code).toBe(0);
    // The question is whole on its line and what was typed follows it: no status line drew over either.
    const text = screen.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '');
    expect(text).toMatch(new RegExp(`${QUESTION.source}${answer}\\r*\\n`));
    expect(screen).toContain('left [Alice] refused');
  });

  it('refuses in `ask` without a terminal, with a message saying how to allow it, and --json names the server called', async () => {
    const { profile, env } = await memoryProject();
    const json = resultOf(await runCli(['--profile', profile, '--json', 'ask', 'Delete Alice'], { env }));
    expect(json.answer).toMatch(/left \[Alice\] refused: .*nobody can be asked: cortex is not running interactively.*--yes/);
    expect(json.steps[0].tool_calls.map((c: { name: string; server?: string; ok: boolean }) => [c.name, c.server, c.ok])).toEqual([
      ['create_entities', 'memory', true],
      ['delete_entities', 'memory', false],
      ['read_graph', 'memory', true],
    ]);
  });

  it('runs it without asking with --yes', async () => {
    const { profile, env } = await memoryProject();
    const run = await runCli(['--profile', profile, '--yes', 'ask', 'Delete Alice'], { env });
    expect(run.stdout).toContain('left [] deleted');
    expect(run.stdout + run.stderr).not.toMatch(QUESTION);
  });
});

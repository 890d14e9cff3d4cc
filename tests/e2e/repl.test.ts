import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/paths.js';
import { runCli } from '../cli/run-cli.js';
import { startFakeOllamaServer, ollamaChatReply, type FakeLlmServer } from '../helpers/fake-ollama-server.js';
import { PERCEPTION_JSON, fenced, isPerception, ollamaEnv, promptOf, tempProject } from './ask-harness.js';

let server: FakeLlmServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Answers every decision with 2 + <n>, where n counts the decisions so far. */
async function countingOllama(): Promise<FakeLlmServer> {
  let n = 0;
  server = await startFakeOllamaServer({
    replies: (req) => {
      if (req.path !== '/api/chat') return undefined;
      if (isPerception(req)) return ollamaChatReply(PERCEPTION_JSON);
      n += 1;
      return ollamaChatReply(fenced(`async function solve() { return "FINAL_ANSWER: " + await tools.add({ a: 2, b: ${n} }); }`));
    },
  });
  return server;
}

function sessionFiles(memoryDir: string): string[] {
  return readdirSync(memoryDir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /^session-.*\.json$/.test(e.name))
    .map((e) => join(e.parentPath, e.name));
}

describe('cortex REPL and sessions', () => {
  it('keeps one session across questions until `new`, then starts another', async () => {
    const llm = await countingOllama();
    const { profile, memoryDir } = tempProject();
    const run = await runCli(['--profile', profile], { env: ollamaEnv(llm.url), input: 'first?\nsecond?\nnew\nthird?\nexit\n' });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/3[\s\S]*4[\s\S]*5/);
    const files = sessionFiles(memoryDir);
    expect(files).toHaveLength(2);
    const queries = files.map((f) => JSON.parse(readFileSync(f, 'utf8')).filter((i: { type: string }) => i.type === 'run_metadata').length).sort();
    expect(queries).toEqual([1, 2]);
  });

  it('continues a session with --session, showing the model the earlier question', async () => {
    const llm = await countingOllama();
    const { profile } = tempProject();
    const first = JSON.parse((await runCli(['--profile', profile, '--json', 'ask', 'What is two plus one?'], { env: ollamaEnv(llm.url) })).stdout);
    const second = JSON.parse(
      (await runCli(['--profile', profile, '--json', '--session', first.session_id, 'ask', 'And plus two?'], { env: ollamaEnv(llm.url) })).stdout,
    );
    expect(second.session_id).toBe(first.session_id);
    const lastDecision = llm.requests.filter((r) => r.path === '/api/chat' && !isPerception(r)).map(promptOf).at(-1)!;
    expect(lastDecision).toContain('What is two plus one?');

    const sessions = await runCli(['--profile', profile, '--json', 'sessions']);
    expect(JSON.parse(sessions.stdout)).toEqual([expect.objectContaining({ id: first.session_id, first_query: 'What is two plus one?' })]);
  });

  it('refuses an unknown session id as bad usage', async () => {
    const llm = await countingOllama();
    const { profile } = tempProject();
    const run = await runCli(['--profile', profile, '--session', '1700000000-abcdef', 'ask', 'x'], { env: ollamaEnv(llm.url) });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/1700000000-abcdef/);
  });
});

describe('cortex REPL interrupt', () => {
  it('cancels the running question on Ctrl-C, keeps the REPL going and counts it as cancelled in /stats', async () => {
    let decisions = 0;
    let hung = (): void => undefined;
    const decisionHangs = new Promise<void>((resolve) => (hung = resolve));
    server = await startFakeOllamaServer({
      replies: (req) => {
        if (req.path !== '/api/chat') return undefined;
        if (isPerception(req)) return ollamaChatReply(PERCEPTION_JSON);
        decisions += 1;
        // The first decision never comes back, as with a stuck model; the second answers.
        if (decisions === 1) hung();
        return decisions === 1 ? { hang: true } : ollamaChatReply(fenced('async function solve() { return "FINAL_ANSWER: still here"; }'));
      },
    });
    const { profile } = tempProject();
    const child = spawn(process.execPath, [join(PROJECT_ROOT, 'bin', 'cortex.js'), '--profile', profile], {
      env: { ...ollamaEnv(server.url), NO_COLOR: '1' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    const cancelled = new Promise<void>((resolve) =>
      child.stderr.on('data', (d: Buffer) => {
        stderr += d.toString();
        if (stderr.includes('Cancelled')) resolve();
      }),
    );
    const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
    child.stdin.write('stuck question?\n');
    await decisionHangs;
    expect(decisions).toBe(1);
    child.kill('SIGINT');
    await cancelled;
    child.stdin.end('second question?\n/stats\nexit\n');
    expect(await closed).toBe(0);
    expect(stdout).toContain('still here');
    // /stats counts the cancelled question apart from the answered one.
    expect(stderr).toMatch(/2 questions \(1 answered, 0 gave up, 0 failed, 1 cancelled\)/);
  });
});

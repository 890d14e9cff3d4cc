// The CLI as people expect it: --version, "did you mean", sessions show/rm/continue, pipes, the --json contract.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/paths.js';
import { runCli, resultOf } from '../cli/run-cli.js';
import { startFakeOllamaServer, ollamaChatReply, type FakeLlmServer, type RecordedRequest } from '../helpers/fake-ollama-server.js';
import { PERCEPTION_JSON, fenced, isPerception, ollamaEnv, promptOf, tempProject } from './ask-harness.js';

let server: FakeLlmServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A fake Ollama answering perception with JSON and every decision with a plan returning `answer(prompt)`. */
async function ollamaAnswering(answer: (prompt: string) => string): Promise<FakeLlmServer> {
  server = await startFakeOllamaServer({
    replies: (req: RecordedRequest) => {
      if (req.path !== '/api/chat') return undefined;
      if (isPerception(req)) return ollamaChatReply(PERCEPTION_JSON);
      return ollamaChatReply(fenced(`async function solve() { return ${JSON.stringify(`FINAL_ANSWER: ${answer(promptOf(req))}`)}; }`));
    },
  });
  return server;
}

const decisionPrompts = (s: FakeLlmServer) => s.requests.filter((r) => r.path === '/api/chat' && !isPerception(r)).map(promptOf);

/** Runs the CLI with stdin from a shell pipe carrying `text` (`printf … | cortex …`, as a user would). */
function runWithPipe(args: string[], text: string, env: NodeJS.ProcessEnv) {
  return runCli(args, {
    // The text travels in the environment, so no shell quoting is needed.
    env: { ...env, PIPED: text },
    wrap: (command, argv) => ({ command: '/bin/sh', args: ['-c', 'printf "%s" "$PIPED" | "$@"', 'sh', command, ...argv] }),
  });
}

describe('cortex front door (built CLI)', () => {
  it('prints its version, and suggests the nearest command for a typo', async () => {
    const version = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')).version;
    const v = await runCli(['--version']);
    expect(v.code).toBe(0);
    expect(v.stdout.trim()).toBe(version);
    const typo = await runCli(['ak', 'hi']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain("unknown command 'ak'");
    expect(typo.stderr).toContain('Did you mean ask?');
  });

  it('lists sessions with local time, question count and outcome; shows one; continues the latest with -c; deletes one', async () => {
    const llm = await ollamaAnswering((prompt) => (prompt.includes('second') ? 'two' : 'one'));
    const { profile } = tempProject();
    const env = ollamaEnv(llm.url);
    const first = resultOf(await runCli(['--profile', profile, '--json', 'ask', 'the first question'], { env }));
    const second = resultOf(await runCli(['--profile', profile, '--json', 'ask', '-c', 'the second question'], { env }));
    expect(second.session_id).toBe(first.session_id);

    const list = await runCli(['--profile', profile, 'sessions'], { env });
    expect(list.code).toBe(0);
    const line = list.stdout.split('\n').find((l) => l.startsWith(first.session_id))!;
    expect(line).toMatch(/\d{4}-\d{2}-\d{2} \d{2}:\d{2}/);
    expect(line).toContain('2 questions');
    expect(line).toContain('answered');
    expect(line).toContain('the first question');

    const show = await runCli(['--profile', profile, 'sessions', 'show', first.session_id], { env });
    expect(show.code).toBe(0);
    expect(show.stdout).toContain('Question 1');
    expect(show.stdout).toContain('the first question');
    expect(show.stdout).toContain('Answer: one');
    expect(show.stdout).toContain('Question 2');
    expect(show.stdout).toContain('Answer: two');
    expect(show.stdout).toContain('async function solve()');

    const rm = await runCli(['--profile', profile, 'sessions', 'rm', first.session_id], { env });
    expect(rm.code).toBe(0);
    const after = await runCli(['--profile', profile, 'sessions', 'show', first.session_id], { env });
    expect(after.code).toBe(2);
    expect(after.stderr).toContain(`no session ${first.session_id}`);
  });

  it('adds piped text to the question, and reads the question itself from stdin with `ask -`', async () => {
    const llm = await ollamaAnswering(() => 'done');
    const { profile } = tempProject();
    const env = ollamaEnv(llm.url);
    const piped = await runWithPipe(['--profile', profile, 'ask', 'summarise this'], 'The secret word is pelican.', env);
    expect(piped.code).toBe(0);
    expect(piped.stdout.trim()).toBe('done');
    expect(decisionPrompts(llm).at(-1)).toContain('summarise this');
    expect(decisionPrompts(llm).at(-1)).toContain('The secret word is pelican.');

    const fromStdin = await runWithPipe(['--profile', profile, 'ask', '-'], 'what is the colour of the sky', env);
    expect(fromStdin.code).toBe(0);
    expect(decisionPrompts(llm).at(-1)).toContain('what is the colour of the sky');
  });

  it('says when piped text was cut to its bound', async () => {
    const llm = await ollamaAnswering(() => 'done');
    const { profile } = tempProject();
    const run = await runWithPipe(['--profile', profile, 'ask', 'count the letters'], 'x'.repeat(100_050), ollamaEnv(llm.url));
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('only the first 100000 characters of the piped text are used (50 more were left out)');
  });

  it('gives the same --json keys when the LLM cannot be reached or the config is bad as when it answers', async () => {
    const llm = await ollamaAnswering(() => 'fine');
    const { profile } = tempProject();
    const answered = resultOf(await runCli(['--profile', profile, '--json', 'ask', 'hello'], { env: ollamaEnv(llm.url) }));
    await llm.close();
    const failed = await runCli(['--profile', profile, '--json', 'ask', 'hello'], { env: ollamaEnv(llm.url) });
    expect(failed.code).toBe(3);
    const json = JSON.parse(failed.stdout);
    expect(Object.keys(json).sort()).toEqual(Object.keys(answered).sort());
    expect(json).toMatchObject({ status: 'error', answer: null, steps: [], error: { code: 'llm_unavailable' } });
    expect(answered.error).toBeNull();
    expect(answered.reason).toBeNull();

    // A profile that does not exist stops the run before it has a session: still the same keys.
    const badConfig = await runCli(['--profile', join(profile, 'missing.yaml'), '--json', 'ask', 'hello'], { env: ollamaEnv(llm.url) });
    expect(badConfig.code).toBe(2);
    const badJson = JSON.parse(badConfig.stdout);
    expect(Object.keys(badJson).sort()).toEqual(Object.keys(answered).sort());
    expect(badJson).toMatchObject({ status: 'error', session_id: null, error: { code: 'config' } });
  });

  it('prints a cancelled --json object and exits 130 when interrupted with Ctrl-C (SIGINT) mid-question', async () => {
    // The decision request hangs until the CLI is interrupted.
    server = await startFakeOllamaServer({
      replies: (req: RecordedRequest) => {
        if (req.path !== '/api/chat') return undefined;
        return isPerception(req) ? ollamaChatReply(PERCEPTION_JSON) : { hang: true };
      },
    });
    const llm = server;
    const { profile } = tempProject();
    const child = spawn(process.execPath, [join(PROJECT_ROOT, 'bin', 'cortex.js'), '--profile', profile, '--json', 'ask', 'wait forever'], {
      cwd: PROJECT_ROOT,
      env: { ...ollamaEnv(llm.url), NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    await llm.waitForRequests(llm.requests.filter((r) => r.path === '/api/chat').length + 2);
    child.kill('SIGINT');
    const code = await exited;
    expect(stdout, stderr).not.toBe('');
    const json = JSON.parse(stdout);
    expect(json).toMatchObject({ status: 'cancelled', answer: null, error: null });
    expect(typeof json.session_id).toBe('string');
    expect(code).toBe(130);
  });
});

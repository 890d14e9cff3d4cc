// `cortex ask` reads text given on stdin from any non-terminal source, and is never held up by a silent one.
import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/paths.js';
import { runCli, type CliRun } from '../cli/run-cli.js';
import { startFakeOllamaServer, ollamaChatReply, type FakeLlmServer, type RecordedRequest } from '../helpers/fake-ollama-server.js';
import { PERCEPTION_JSON, fenced, isPerception, ollamaEnv, promptOf, tempProject } from './ask-harness.js';

/** Upper bound on one run here; it only fails a hung CLI, it asserts nothing about speed. */
const RUN_BOUND_MS = 60_000;

let server: FakeLlmServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A fake Ollama whose every plan answers "done". */
async function scriptedModel(): Promise<FakeLlmServer> {
  server = await startFakeOllamaServer({
    replies: (req: RecordedRequest) => {
      if (req.path !== '/api/chat') return undefined;
      if (isPerception(req)) return ollamaChatReply(PERCEPTION_JSON);
      return ollamaChatReply(fenced('async function solve() { return "FINAL_ANSWER: done"; }'));
    },
  });
  return server;
}

const lastDecisionPrompt = (s: FakeLlmServer) => s.requests.filter((r) => r.path === '/api/chat' && !isPerception(r)).map(promptOf).at(-1) ?? '';

/** Runs the built CLI with the given stdin: a file descriptor, or a socket left open and never written to. */
function runWithStdin(args: string[], stdin: number | 'silent-socket', env: NodeJS.ProcessEnv): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(PROJECT_ROOT, 'bin', 'cortex.js'), ...args], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, NO_COLOR: '1', ...env },
      stdio: [stdin === 'silent-socket' ? 'pipe' : stdin, 'pipe', 'pipe'],
      timeout: RUN_BOUND_MS,
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('cortex ask with text on stdin', () => {
  it('reads text a program passes through a socket (spawn with stdio "pipe")', async () => {
    const llm = await scriptedModel();
    const { profile } = tempProject();
    const run = await runCli(['--profile', profile, 'ask', 'summarise this'], { env: ollamaEnv(llm.url), input: 'The secret word is heron.' });
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toBe('done');
    expect(lastDecisionPrompt(llm)).toContain('The secret word is heron.');
  });

  it('reads text from a file redirect (`cortex ask … < notes.txt`)', async () => {
    const llm = await scriptedModel();
    const { profile } = tempProject();
    const file = join(mkdtempSync(join(tmpdir(), 'cortex-stdin-')), 'notes.txt');
    writeFileSync(file, 'The secret word is osprey.');
    const fd = openSync(file, 'r');
    try {
      const run = await runWithStdin(['--profile', profile, 'ask', 'summarise this'], fd, ollamaEnv(llm.url));
      expect(run.code).toBe(0);
      expect(lastDecisionPrompt(llm)).toContain('The secret word is osprey.');
    } finally {
      closeSync(fd);
    }
  });

  it('answers a question given as words when stdin stays open and silent, and says stdin was not used', async () => {
    const llm = await scriptedModel();
    const { profile } = tempProject();
    const run = await runWithStdin(['--profile', profile, 'ask', 'what is the answer'], 'silent-socket', ollamaEnv(llm.url));
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toBe('done');
    expect(run.stderr).toContain('stdin sent nothing within 1 s, so the question goes without it');
    expect(lastDecisionPrompt(llm)).toContain('what is the answer');
  });
});

// Runs the built `cortex` CLI as a user would, capturing its output and exit code.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../src/paths.js';

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Upper bound for one CLI run in tests, so a hung CLI fails the test instead of the suite. */
const CLI_RUN_TIMEOUT_MS = 60_000;

export function runCli(
  args: string[],
  options: { env?: NodeJS.ProcessEnv; input?: string; cwd?: string; wrap?: (command: string, args: string[]) => { command: string; args: string[] } } = {},
): Promise<CliRun> {
  const plain = { command: process.execPath, args: [join(PROJECT_ROOT, 'bin', 'cortex.js'), ...args] };
  const { command, args: argv } = options.wrap ? options.wrap(plain.command, plain.args) : plain;
  return new Promise((resolve, reject) => {
    const child = spawn(command, argv, {
      cwd: options.cwd ?? PROJECT_ROOT,
      env: { ...process.env, NO_COLOR: '1', ...options.env },
      timeout: CLI_RUN_TIMEOUT_MS,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}

/** The `--json` result of a run that got as far as running the agent; otherwise fails with what the CLI printed. */
export function resultOf(run: CliRun): any {
  const json = JSON.parse(run.stdout || 'null');
  if (!json || !Array.isArray(json.steps)) throw new Error(`no agent result (exit ${run.code}):\n${run.stdout}\n${run.stderr}`);
  return json;
}

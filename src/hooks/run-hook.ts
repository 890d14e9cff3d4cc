// Runs one hook command outside the sandbox: the event as JSON on stdin, bounded output, killed at its time limit.
import { spawn } from 'node:child_process';

/** Output kept from a hook's stdout and from its stderr, each, in characters: a chatty hook cannot fill memory. */
export const MAX_HOOK_OUTPUT_CHARS = 64 * 1024;

/** How one hook run ended. `exitCode` null: it did not exit by itself (timed out, killed, or never started). */
export interface HookRun {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** Why it could not be started, when it could not. */
  startError?: string;
}

export interface RunHookOptions {
  command: string;
  /** The event, sent as JSON on stdin. */
  input: unknown;
  timeoutMs: number;
  /** The project folder: the hook's working directory, and CORTEX_PROJECT_DIR / CLAUDE_PROJECT_DIR in its environment. */
  cwd: string;
  /** Aborting stops the hook (the question was cancelled). */
  signal?: AbortSignal;
}

/**
 * Runs `command` with /bin/sh in its own process group, so a time-out stops whatever it started too. Never throws:
 * every failure (cannot start, time-out, crash) is in the HookRun.
 */
export function runHook({ command, input, timeoutMs, cwd, signal }: RunHookOptions): Promise<HookRun> {
  return new Promise((resolve) => {
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    let settled = false;
    const child = spawn('/bin/sh', ['-c', command], {
      cwd,
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, CORTEX_PROJECT_DIR: cwd, CLAUDE_PROJECT_DIR: cwd },
    });
    const stop = () => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, timeoutMs);
    const onAbort = () => stop();
    signal?.addEventListener('abort', onAbort, { once: true });
    const done = (run: HookRun) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      resolve(run);
    };
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      if (stdout.length < MAX_HOOK_OUTPUT_CHARS) stdout += d.slice(0, MAX_HOOK_OUTPUT_CHARS - stdout.length);
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      if (stderr.length < MAX_HOOK_OUTPUT_CHARS) stderr += d.slice(0, MAX_HOOK_OUTPUT_CHARS - stderr.length);
    });
    // A hook that exits without reading its input closes the pipe early; that is its business, not an error.
    child.stdin.on('error', () => undefined);
    child.stdin.end(JSON.stringify(input));
    child.on('error', (err) => done({ exitCode: null, stdout, stderr, timedOut, startError: err.message }));
    child.on('close', (code) => done({ exitCode: timedOut ? null : code, stdout, stderr, timedOut }));
  });
}

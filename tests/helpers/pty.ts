// Drives the built CLI in a pseudo-terminal (through a small Python bridge), as a person at a terminal would.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../src/paths.js';

/** Terminal control sequences (cursor moves, colours, modes), removed before tests read the screen's text. */
const CONTROL_SEQUENCE = /\x1b(?:\[[0-9;?]*[ -\/]*[@-~]|[@-Z\\-_])/g;

/** Longest wait for expected output: long enough for a loaded machine; it only bounds a failing test. */
const PTY_WAIT_MS = 30_000;

export interface PtySession {
  /** Types text (escape sequences included) into the terminal. */
  write(text: string): void;
  /** Everything the program wrote to the terminal so far, control sequences removed. */
  output(): string;
  /** Resolves once the output written after `from` (an output() length) matches `pattern`. */
  waitFor(pattern: RegExp, from?: number): Promise<string>;
  /** The exit code, once the program ends. */
  exited: Promise<number | null>;
  kill(): void;
}

/** Starts `cortex ARGS` in a terminal of 120 × 40. */
export function cortexInPty(args: string[], env: NodeJS.ProcessEnv): PtySession {
  const child = spawn('python3', [join(PROJECT_ROOT, 'tests/helpers/pty-bridge.py'), '120', '40', process.execPath, join(PROJECT_ROOT, 'bin/cortex.js'), ...args], {
    cwd: PROJECT_ROOT,
    env: { ...env, TERM: 'xterm-256color' },
  });
  let text = '';
  const waiters = new Set<() => void>();
  child.stdout.on('data', (d: Buffer) => {
    text += d.toString();
    for (const check of [...waiters]) check();
  });
  child.stderr.on('data', (d: Buffer) => (text += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return {
    write: (input) => child.stdin.write(input),
    output: () => text.replace(CONTROL_SEQUENCE, ''),
    waitFor(pattern, from = 0) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no ${pattern} in the terminal; it shows:\n${text.replace(CONTROL_SEQUENCE, '').slice(from)}`));
        }, PTY_WAIT_MS);
        const check = () => {
          const match = pattern.exec(text.replace(CONTROL_SEQUENCE, '').slice(from));
          if (!match) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(match[0]);
        };
        waiters.add(check);
        check();
      });
    },
    exited,
    kill: () => child.kill('SIGKILL'),
  };
}

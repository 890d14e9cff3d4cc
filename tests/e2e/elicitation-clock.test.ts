// While a server waits for the person's answer, neither the tool call's time limit nor the plan's counts: the
// person answers long after both would have ended the call, and the call still succeeds. A silent tool called
// beside it still times out.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/paths.js';
import { ollamaChatReply, startFakeOllamaServer, type FakeLlmServer } from '../helpers/fake-ollama-server.js';
import { fileAppeared } from '../helpers/file-appeared.js';
import { fenced, isPerception, ollamaEnv, tempProject } from './ask-harness.js';

/** The plan's time limit and one call's, as small as the profile allows them to be useful. */
const PLAN_TIMEOUT_MS = 1_500;
const TOOL_TIMEOUT_MS = 300;
/** Longest the test waits for the CLI to show something, so a hung CLI fails the test instead of the suite. */
const SHOW_WAIT_MS = 60_000;

let server: FakeLlmServer | undefined;
let child: ChildProcessWithoutNullStreams | undefined;
afterEach(async () => {
  child?.kill();
  await server?.close();
  server = child = undefined;
});

/** The profile's servers; the silent one records in `cancelledFile` when the client gives up on its call. */
const serversYaml = (cancelledFile: string) =>
  `  - id: booking\n    command: ${process.execPath}\n    args: [${JSON.stringify(join(PROJECT_ROOT, 'tests/fixtures/asking-server.mjs'))}]\n    description: Table bookings\n` +
  `  - id: silent\n    command: ${process.execPath}\n    args: [${JSON.stringify(join(PROJECT_ROOT, 'tests/fixtures/silent-server.mjs'))}]\n    env:\n      SILENT_CANCELLED_FILE: ${JSON.stringify(cancelledFile)}\n    description: A tool that never answers\n`;

/** The REPL on pipes: `shown()` is all it printed, `until(re)` waits for `re` to appear in it. */
function repl(args: string[], env: NodeJS.ProcessEnv) {
  const proc = spawn(process.execPath, [join(PROJECT_ROOT, 'bin', 'cortex.js'), ...args], { cwd: PROJECT_ROOT, env: { ...process.env, NO_COLOR: '1', ...env } });
  child = proc;
  let out = '';
  let err = '';
  const waiters = new Set<() => void>();
  const seen = () => waiters.forEach((w) => w());
  proc.stdout.on('data', (d: Buffer) => { out += d.toString(); seen(); });
  proc.stderr.on('data', (d: Buffer) => { err += d.toString(); seen(); });
  const exited = new Promise<number | null>((resolve) => proc.on('close', (code) => { seen(); resolve(code); }));
  const shown = () => out + err;
  const until = (re: RegExp) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`never shown: ${re}\n--- stdout\n${out}\n--- stderr\n${err}`)), SHOW_WAIT_MS);
      const check = () => {
        if (re.test(out) || re.test(err)) {
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        } else if (proc.exitCode !== null || /✗ book_table/.test(err)) {
          clearTimeout(timer);
          waiters.delete(check);
          reject(new Error(`exited or the booking failed before showing ${re}\n--- stdout\n${out}\n--- stderr\n${err}`));
        }
      };
      waiters.add(check);
      check();
    });
  return { type: (line: string) => proc.stdin.write(`${line}\n`), until, shown, stdout: () => out, stderr: () => err, exited };
}

/** The model: both servers, and a plan that books a table while a silent tool runs beside it. */
async function bookingModel(): Promise<FakeLlmServer> {
  server = await startFakeOllamaServer({
    replies: (req) => {
      if (req.path !== '/api/chat') return undefined;
      if (isPerception(req)) return ollamaChatReply(JSON.stringify({ intent: 'book', entities: [], tool_hint: '', selected_servers: ['booking', 'silent'] }));
      return ollamaChatReply(fenced([
        'async function solve() {',
        '  const silent = tools.wait_silently({}).then(() => "answered", () => "timed out");',
        '  const booked = await tools.book_table({});',
        '  return "FINAL_ANSWER: " + booked + "; the silent tool " + (await silent);',
        '}',
      ].join('\n')));
    },
  });
  return server;
}

/**
 * Asks for a booking under `sandbox` limits and answers only once the silent tool, called at the same moment, has
 * failed: by then the limit that ended it has passed for the booking too. The booking must still succeed.
 */
async function answerAfterTheSilentToolFailed(sandbox: Record<string, number>): Promise<void> {
  const llm = await bookingModel();
  const cancelled = join(mkdtempSync(join(tmpdir(), 'cortex-silent-')), 'cancelled');
  const { profile } = tempProject({ servers: serversYaml(cancelled), sandbox });
  const cli = repl(['--profile', profile], ollamaEnv(llm.url));
  cli.type('Book me a table');
  await cli.until(/The MCP server "booking" asks: Who is the table for\?/);
  await cli.until(/Answer\? \[y\/N\] $/);
  // The silent call gave up (the server was told so) while the question was on screen; nothing was drawn over it.
  await fileAppeared(cancelled);
  expect(cli.stderr()).not.toMatch(/wait_silently/);
  cli.type('y');
  await cli.until(/Name: $/);
  cli.type('Ada');
  await cli.until(/guests.*: $/);
  cli.type('4');
  await cli.until(/booked for Ada, 4 guests; the silent tool timed out/);
  // The line about the silent call came once the form was answered.
  expect(cli.stderr()).toMatch(/✗ wait_silently\(\{\}\).*(did not answer|timed out)/i);
  expect(cli.stderr()).not.toMatch(/✗ book_table/);
  cli.type('/exit');
  expect(await cli.exited).toBe(0);
}

describe('the clocks while a server waits for the person', () => {
  it("does not count the wait against the call's own time limit (a silent tool beside it still times out)", async () => {
    // The silent call ends by its own 300 ms limit (the plan has far longer); the booking's limit is the same.
    await answerAfterTheSilentToolFailed({ timeout_ms: 30_000, tool_timeout_ms: TOOL_TIMEOUT_MS });
  }, 120_000);

  it("does not count the wait against the plan's time limit", async () => {
    // The call limit is longer than the plan's, so each call may run until the plan's end plus a grace second: the
    // silent call fails only after the plan's time limit has passed, and the booking is answered later still.
    await answerAfterTheSilentToolFailed({ timeout_ms: PLAN_TIMEOUT_MS, tool_timeout_ms: 60_000 });
  }, 120_000);
});

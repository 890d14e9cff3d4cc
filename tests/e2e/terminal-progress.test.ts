// What a person sees at a terminal while a slow local model writes its plan: a line that keeps moving (spinner,
// model, seconds, tokens), the plan's text as it arrives with -v, and the answer in full.
import { afterEach, describe, expect, it } from 'vitest';
import { heldStream, ollamaChatReply, ollamaChunk, ollamaDone, type FakeLlmServer } from '../helpers/fake-ollama-server.js';
import { cortexInPty, type PtySession } from '../helpers/pty.js';
import { resultOf, runCli } from '../cli/run-cli.js';
import { ollamaEnv, planningOllama, tempProject } from './ask-harness.js';

const TERMINAL_TEST_TIMEOUT_MS = 120_000;

let server: FakeLlmServer | undefined;
let session: PtySession | undefined;
afterEach(async () => {
  session?.kill();
  session = undefined;
  await server?.close();
  server = undefined;
});

const PLAN = ['Here is the plan.\n```javascript\n', 'async function solve() {\n  const sum = await tools.add({ a: 20, b: 22 });\n', '  return `FINAL_ANSWER: ${sum}`;\n}\n```\n'];

async function slowModel(): Promise<ReturnType<typeof heldStream>> {
  const held = heldStream([...PLAN.map((piece) => ollamaChunk(piece)), ollamaDone({ completionTokens: 40 })]);
  server = await planningOllama(() => ({ frames: held.frames }));
  return held;
}

describe('progress at a terminal with a slow model', () => {
  it(
    'keeps the status line moving while the model writes, then prints the answer',
    async () => {
      const held = await slowModel();
      const { profile } = tempProject();
      session = cortexInPty(['--profile', profile, 'ask', 'What is 20 plus 22?'], ollamaEnv(server!.url));
      // Nothing has streamed yet: the line already names the work, the model and the seconds waited.
      await session.waitFor(/writing the plan for step 1 · qwen2\.5-coder:7b · \d+ s/);
      // …and it is redrawn while the model is still silent (the spinner turns), so the screen visibly changes.
      const before = session.output();
      await session.waitFor(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] writing the plan/, before.length);
      held.release();
      // Once text arrives, the tokens so far are counted on the same line.
      await session.waitFor(/writing the plan for step 1 · qwen2\.5-coder:7b · \d+ s · \d+ tokens/);
      for (let i = 1; i < PLAN.length + 1; i++) held.release();
      await session.waitFor(/^42$/m);
      expect(await session.exited).toBe(0);
      expect(session.output()).toMatch(/✓ add\(\{"a":20,"b":22\}\)/);
    },
    TERMINAL_TEST_TIMEOUT_MS,
  );

  it(
    'shows the plan as the model writes it with -v',
    async () => {
      const held = await slowModel();
      const { profile } = tempProject();
      session = cortexInPty(['--profile', profile, '-v', 'ask', 'What is 20 plus 22?'], ollamaEnv(server!.url));
      await session.waitFor(/writing the plan for step 1/);
      held.release();
      held.release();
      // The first two pieces are on screen while the rest of the reply is still held back.
      await session.waitFor(/plan for step 1 ──[\s\S]*const sum = await tools\.add/);
      expect(session.output()).not.toMatch(/FINAL_ANSWER: \$\{sum\}/);
      held.release();
      held.release();
      await session.waitFor(/^42$/m);
      expect(await session.exited).toBe(0);
      // The request's figures follow it.
      expect(session.output()).toMatch(/decision: qwen2\.5-coder:7b, [\d.]+ s, \d+ tokens in, 40 out/);
    },
    TERMINAL_TEST_TIMEOUT_MS,
  );

  it(
    'gives a --json consumer the one object on stdout and the progress, retries included, as plain lines on stderr',
    async () => {
      server = await planningOllama((_req, n) => (n === 1 ? { status: 500, body: { error: 'model runner crashed' } } : ollamaChatReply(PLAN.join(''))));
      const { profile } = tempProject();
      const run = await runCli(['--profile', profile, '--json', 'ask', 'What is 20 plus 22?'], { env: ollamaEnv(server.url) });
      expect(resultOf(run)).toMatchObject({ status: 'answered', answer: '42' });
      expect(run.stderr).toMatch(/^writing the plan for step 1 \(qwen2\.5-coder:7b\)$/m);
      expect(run.stderr).toMatch(/^the model's request failed \(HTTP 500\); retrying \(2\/4\) in \d+ s$/m);
      expect(run.stderr).toMatch(/^  ✓ add\(\{"a":20,"b":22\}\) \d+ ms$/m);
    },
    TERMINAL_TEST_TIMEOUT_MS,
  );
});

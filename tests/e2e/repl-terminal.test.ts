// The REPL at a real terminal (a pseudo-terminal): it survives model failures, takes slash commands and pastes,
// and keeps its input history between runs.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ollamaChatReply, type FakeLlmServer } from '../helpers/fake-ollama-server.js';
import { cortexInPty, type PtySession } from '../helpers/pty.js';
import { decisionPrompts, fenced, ollamaEnv, planningOllama, tempProject } from './ask-harness.js';

/** Each test drives a whole CLI run at a terminal: room for a loaded machine. */
const TERMINAL_TEST_TIMEOUT_MS = 120_000;
const PROMPT = /cortex> $/;

let server: FakeLlmServer | undefined;
let session: PtySession | undefined;
afterEach(async () => {
  session?.kill();
  session = undefined;
  await server?.close();
  server = undefined;
});

/** A models file whose Ollama entry does not retry, so a failure shows at once. */
function noRetryModels(root: string): string {
  const file = join(root, 'models.yaml');
  writeFileSync(file, 'models:\n  ollama:\n    type: ollama\n    model: qwen2.5-coder:7b\n    max_retries: 0\n');
  return file;
}

describe('cortex REPL at a terminal', () => {
  it(
    'shows a model failure and answers the next question in the same session',
    async () => {
      server = await planningOllama((_req, n) =>
        n === 1
          ? { status: 500, body: { error: 'model runner crashed' } }
          : ollamaChatReply(fenced('async function solve() { return "FINAL_ANSWER: " + await tools.add({ a: 40, b: 2 }); }')),
      );
      const project = tempProject();
      session = cortexInPty(['--profile', project.profile, '--models', noRetryModels(project.root)], ollamaEnv(server.url));
      await session.waitFor(PROMPT);
      let mark = session.output().length;
      session.write('What is 40 plus 2?\r');
      await session.waitFor(/error: .*500/, mark);
      await session.waitFor(PROMPT, mark);
      mark = session.output().length;
      session.write('And now?\r');
      await session.waitFor(/42/, mark);
      await session.waitFor(PROMPT, mark);
      session.write('/exit\r');
      expect(await session.exited).toBe(0);
      // Both questions went into one session file.
      expect(decisionPrompts(server).at(-1)).toContain('What is 40 plus 2?');
    },
    TERMINAL_TEST_TIMEOUT_MS,
  );

  it(
    'runs slash commands without asking the model, refuses an unknown one, and sends a paste as one question',
    async () => {
      server = await planningOllama(() => ollamaChatReply(fenced('async function solve() { return "FINAL_ANSWER: pasted"; }')));
      const project = tempProject();
      session = cortexInPty(['--profile', project.profile], ollamaEnv(server.url));
      await session.waitFor(PROMPT);
      let mark = session.output().length;
      session.write('/help\r');
      await session.waitFor(/\/model \[NAME\]/, mark);
      mark = session.output().length;
      session.write('/frobnicate\r');
      await session.waitFor(/unknown command \/frobnicate/, mark);
      mark = session.output().length;
      session.write('clear\r');
      await session.waitFor(PROMPT, mark);
      expect(server.requests.filter((r) => r.path === '/api/chat')).toHaveLength(0);

      // A two-line paste, then Enter: one question holding both lines.
      mark = session.output().length;
      session.write('\x1b[200~first line of the paste\rsecond line\x1b[201~\r');
      await session.waitFor(/pasted/, mark);
      expect(decisionPrompts(server)).toHaveLength(1);
      expect(decisionPrompts(server)[0]).toContain('first line of the paste\nsecond line');

      // Ctrl-D ends the REPL cleanly; the question is kept in the history file for the next run.
      await session.waitFor(PROMPT, mark);
      session.write('\x04');
      expect(await session.exited).toBe(0);
      expect(readFileSync(join(project.root, 'cache', 'repl-history'), 'utf8')).toContain('second line');
    },
    TERMINAL_TEST_TIMEOUT_MS,
  );

  it(
    'says at start-up that the model is not pulled and how to pull it, and /model switches to one that is',
    async () => {
      server = await planningOllama(() => ollamaChatReply(fenced('async function solve() { return "FINAL_ANSWER: " + await tools.add({ a: 1, b: 1 }); }')), {
        models: ['llama3.1:8b'],
        strictModels: true,
      });
      const project = tempProject();
      session = cortexInPty(['--profile', project.profile, '--model', 'ollama:qwen2.5-coder:7b'], ollamaEnv(server.url));
      await session.waitFor(/warning: .*qwen2\.5-coder:7b[\s\S]*ollama pull/);
      await session.waitFor(/llama3\.1:8b/);
      await session.waitFor(PROMPT);
      const mark = session.output().length;
      session.write('/model ollama:llama3.1:8b\r');
      await session.waitFor(PROMPT, mark);
      session.write('What is 1 plus 1?\r');
      await session.waitFor(/^2$/m, mark);
      session.write('/exit\r');
      expect(await session.exited).toBe(0);
      expect(server.requests.filter((r) => r.path === '/api/chat').every((r) => r.body.model === 'llama3.1:8b')).toBe(true);
    },
    TERMINAL_TEST_TIMEOUT_MS,
  );
});

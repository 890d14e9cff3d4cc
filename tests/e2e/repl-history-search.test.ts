// The REPL's Ctrl-R at a real terminal (a pseudo-terminal): a question asked in one run is found and asked again
// in the next, as in bash.
import { afterEach, describe, expect, it } from 'vitest';
import { ollamaChatReply, type FakeLlmServer } from '../helpers/fake-ollama-server.js';
import { cortexInPty, type PtySession } from '../helpers/pty.js';
import { decisionPrompts, fenced, ollamaEnv, planningOllama, tempProject } from './ask-harness.js';

/** Two whole CLI runs at a terminal: room for a loaded machine. */
const SEARCH_TEST_TIMEOUT_MS = 180_000;
const PROMPT = /cortex> $/;
const CTRL_R = '\x12';
const CTRL_G = '\x07';
const CTRL_U = '\x15';

let server: FakeLlmServer | undefined;
let session: PtySession | undefined;
afterEach(async () => {
  session?.kill();
  session = undefined;
  await server?.close();
  server = undefined;
});

describe('cortex REPL history search', () => {
  it(
    'finds a question from the last run with Ctrl-R and asks it again on Enter; Ctrl-G gives the typed line back; Left edits the match',
    async () => {
      server = await planningOllama(() => ollamaChatReply(fenced('async function solve() { return "FINAL_ANSWER: " + await tools.add({ a: 40, b: 2 }); }')));
      const decisions = () => decisionPrompts(server!);
      const project = tempProject();
      const args = ['--profile', project.profile];

      // First run: the question lands in the history file.
      session = cortexInPty(args, ollamaEnv(server.url));
      await session.waitFor(PROMPT);
      let mark = session.output().length;
      session.write('What is 40 plus 2?\r');
      await session.waitFor(/^42\s*$/m, mark);
      await session.waitFor(PROMPT, mark);
      session.write('/exit\r');
      expect(await session.exited).toBe(0);
      expect(decisions()).toHaveLength(1);

      // Second run: a search for nothing fails and Ctrl-G restores the half-typed line.
      session = cortexInPty(args, ollamaEnv(server.url));
      await session.waitFor(PROMPT);
      mark = session.output().length;
      session.write(`draft${CTRL_R}`);
      await session.waitFor(/\(reverse-i-search\)'': /, mark);
      session.write('qqq');
      await session.waitFor(/\(failed reverse-i-search\)'qqq': /, mark);
      mark = session.output().length;
      session.write(CTRL_G);
      await session.waitFor(/cortex> draft/, mark);

      // Ctrl-R and part of the question (in other case) find it; Enter asks it again.
      session.write(`${CTRL_U}${CTRL_R}`);
      mark = session.output().length;
      session.write('PLUS');
      await session.waitFor(/\(reverse-i-search\)'PLUS': What is 40 plus 2\?/, mark);
      mark = session.output().length;
      session.write('\r');
      await session.waitFor(/^42\s*$/m, mark);
      await session.waitFor(PROMPT, mark);
      expect(decisions()).toHaveLength(2);
      expect(decisions()[1]).toContain('What is 40 plus 2?');
      expect(decisions()[1]).not.toContain('draft');

      // The Left arrow takes the match into the line for editing, moving the cursor as it does there.
      mark = session.output().length;
      session.write(`${CTRL_R}40`);
      await session.waitFor(/\(reverse-i-search\)'40': What is 40 plus 2\?/, mark);
      session.write('\x1b[D');
      await session.waitFor(/cortex> What is 40 plus 2\?/, mark);
      // One key per write, as a person types: readline appends all but the last character of a chunk at the line's end.
      mark = session.output().length;
      session.write('!');
      await session.waitFor(/What is 40 plus 2!\?/, mark);
      mark = session.output().length;
      session.write('\r');
      await session.waitFor(/^42\s*$/m, mark);
      await session.waitFor(PROMPT, mark);
      session.write('/exit\r');
      expect(await session.exited).toBe(0);
      expect(decisions()).toHaveLength(3);
      expect(decisions()[2]).toContain('What is 40 plus 2!?');
    },
    SEARCH_TEST_TIMEOUT_MS,
  );
});

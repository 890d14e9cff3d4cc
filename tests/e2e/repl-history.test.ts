// The REPL's history at a real terminal (a pseudo-terminal): a paste or a `\`-continued question is one entry,
// and answers to an approval question are not kept.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/paths.js';
import { startFakeOllamaServer, ollamaChatReply, type FakeLlmServer } from '../helpers/fake-ollama-server.js';
import { cortexInPty, type PtySession } from '../helpers/pty.js';
import { fenced, isPerception, ollamaEnv, tempProject } from './ask-harness.js';

/** A whole CLI run at a terminal: room for a loaded machine. */
const HISTORY_TEST_TIMEOUT_MS = 120_000;
const PROMPT = /cortex> $/;
const UP = '\x1b[A';
const MEMORY_ENTRY = join(PROJECT_ROOT, 'node_modules', '@modelcontextprotocol', 'server-memory', 'dist', 'index.js');

/** Deletes an entity (a destructive call the REPL asks about) and answers. */
const PLAN = fenced(`async function solve() {
  await tools.create_entities({ entities: [{ name: "Alice", entityType: "person", observations: ["test"] }] });
  await tools.delete_entities({ entityNames: ["Alice"] });
  return "FINAL_ANSWER: removed";
}`);

let server: FakeLlmServer | undefined;
let session: PtySession | undefined;
afterEach(async () => {
  session?.kill();
  session = undefined;
  await server?.close();
  server = undefined;
});

describe('cortex REPL history', () => {
  it(
    'keeps a paste and a continued question as one entry each, and no approval answer',
    async () => {
      server = await startFakeOllamaServer({
        replies: (req) => {
          if (req.path !== '/api/chat') return undefined;
          if (isPerception(req)) return ollamaChatReply(JSON.stringify({ intent: 'edit memory', entities: [], tool_hint: '', selected_servers: ['memory'] }));
          return ollamaChatReply(PLAN);
        },
      });
      const memoryFile = join(mkdtempSync(join(tmpdir(), 'cortex-history-')), 'memory.jsonl');
      const servers = `  - id: memory\n    command: ${process.execPath}\n    args: [${JSON.stringify(MEMORY_ENTRY)}]\n    env:\n      MEMORY_FILE_PATH: ${JSON.stringify(memoryFile)}\n    description: A knowledge graph\n`;
      const project = tempProject({ servers, steps: 'strategy:\n  max_steps: 1\n  max_lifelines_per_step: 1\n' });
      session = cortexInPty(['--profile', project.profile], ollamaEnv(server.url));
      await session.waitFor(PROMPT);

      let mark = session.output().length;
      session.write('\x1b[200~remove the pasted\rperson Alice\x1b[201~\r');
      await session.waitFor(/this session\): $/, mark);
      session.write('y\r');
      await session.waitFor(/removed/, mark);
      await session.waitFor(PROMPT, mark);

      mark = session.output().length;
      session.write('remove the continued \\\r');
      await session.waitFor(/\.\.\.> $/, mark);
      session.write('person Alice\r');
      await session.waitFor(/this session\): $/, mark);
      session.write('always\r');
      await session.waitFor(/removed/, mark);
      await session.waitFor(PROMPT, mark);

      // Up brings back the whole continued question, not its last line nor the approval answer. (Node 24's readline
      // shows a recalled entry's further lines after "| ".)
      mark = session.output().length;
      session.write(UP);
      await session.waitFor(/remove the continued \n?\s*(\| )?person Alice/, mark);
      session.write('\x15\x04');
      expect(await session.exited).toBe(0);

      const file = readFileSync(join(project.root, 'cache', 'repl-history'), 'utf8');
      expect(file.split('\n').filter(Boolean)).toEqual([JSON.stringify('remove the pasted\nperson Alice'), JSON.stringify('remove the continued \nperson Alice')]);
    },
    HISTORY_TEST_TIMEOUT_MS,
  );
});

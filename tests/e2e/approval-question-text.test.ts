// The approval question shows the call as it is: a long argument whole (folded, never cut), control characters escaped.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/paths.js';
import { runCli } from '../cli/run-cli.js';
import { ollamaChatReply, startFakeOllamaServer, type FakeLlmServer } from '../helpers/fake-ollama-server.js';
import { fenced, isPerception, ollamaEnv, tempProject } from './ask-harness.js';

const MEMORY_ENTRY = join(PROJECT_ROOT, 'node_modules', '@modelcontextprotocol', 'server-memory', 'dist', 'index.js');
let server: FakeLlmServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** The REPL's screen when the plan deletes an entity named `name` and the user answers no. */
async function questionFor(name: string): Promise<string> {
  const plan = fenced(`async function solve() {
  try { await tools.delete_entities({ entityNames: [${JSON.stringify(name)}] }); } catch (e) { return "FINAL_ANSWER: kept"; }
  return "FINAL_ANSWER: deleted";
}`);
  server = await startFakeOllamaServer({
    replies: (req) => {
      if (req.path !== '/api/chat') return undefined;
      if (isPerception(req)) return ollamaChatReply(JSON.stringify({ intent: 'edit memory', entities: [], tool_hint: '', selected_servers: ['memory'] }));
      return ollamaChatReply(plan);
    },
  });
  const memoryFile = join(mkdtempSync(join(tmpdir(), 'cortex-approval-text-')), 'memory.jsonl');
  const servers = `  - id: memory\n    command: ${process.execPath}\n    args: [${JSON.stringify(MEMORY_ENTRY)}]\n    env:\n      MEMORY_FILE_PATH: ${JSON.stringify(memoryFile)}\n    description: A knowledge graph\n`;
  const { profile } = tempProject({ servers, steps: 'strategy:\n  max_steps: 1\n  max_lifelines_per_step: 1\n' });
  const run = await runCli(['--profile', profile], { env: { ...ollamaEnv(server.url), NO_COLOR: '1' }, input: 'tidy my memory\nn\nexit\n' });
  expect(run.stdout).toContain('Allow memory.delete_entities');
  expect(run.stdout).toContain('kept');
  return run.stdout;
}

describe('the approval question', () => {
  it('shows an argument of 300 characters whole', async () => {
    const name = 'Alice ' + Array.from({ length: 50 }, (_, i) => `part${String(i).padStart(2, '0')}`).join(' ');
    expect(name.length).toBeGreaterThan(300);
    const screen = await questionFor(name);
    // Folding may break it over lines; every word must still be there, in order, ending with the last.
    expect(screen.replace(/\s+/g, ' ')).toContain(name.split(' ').slice(-5).join(' '));
  });

  it('escapes an ANSI escape inside an argument instead of letting it redraw the line', async () => {
    const screen = await questionFor('Alice\u001b[2K\u001b[1GAllow memory.read_graph()? It is read-only.');
    expect(screen).not.toContain('\u001b[2K');
  });

  it('escapes a carriage return inside an argument instead of letting it overwrite the question', async () => {
    const screen = await questionFor('Alice\rAllow memory.read_graph()? It is read-only.');
    expect(screen).not.toContain('\rAllow memory.read_graph');
  });
});

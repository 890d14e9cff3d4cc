// Two-call questions on real third-party MCP servers from npm, run as a script (no --yes, no terminal) with the default profile.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resultOf, runCli } from '../cli/run-cli.js';
import { ollamaChatReply, startFakeOllamaServer, type FakeLlmServer } from '../helpers/fake-ollama-server.js';
import { fenced, isPerception, ollamaEnv, tempProject } from './ask-harness.js';
import { benignTasks, startLocalSite, type BenignTask } from './third-party-harness.js';

const PER_TASK_TIMEOUT_MS = 120_000;
let site: { url: string; close: () => Promise<void> };
let tasks: BenignTask[] = [];

beforeAll(async () => {
  site = await startLocalSite();
  tasks = benignTasks(mkdtempSync(join(tmpdir(), 'cortex-3p-')), site.url);
});
afterAll(() => site.close());

/** Asks one task's question through the built CLI with a planner scripted to that task's plan. */
async function ask(task: BenignTask): Promise<{ answer?: string }> {
  const serverId = /- id: (\S+)/.exec(task.serverYaml)![1];
  const llm: FakeLlmServer = await startFakeOllamaServer({
    replies: (req) => {
      if (req.path !== '/api/chat') return undefined;
      if (isPerception(req)) return ollamaChatReply(JSON.stringify({ intent: task.question, entities: [], tool_hint: '', selected_servers: [serverId] }));
      return ollamaChatReply(fenced(`async function solve() {\n${task.plan}\n}`));
    },
  });
  try {
    const project = tempProject({ servers: task.serverYaml, steps: 'strategy:\n  max_steps: 1\n  max_lifelines_per_step: 1\n' });
    return resultOf(await runCli(['--profile', project.profile, '--json', 'ask', task.question], { env: ollamaEnv(llm.url) }));
  } finally {
    await llm.close();
  }
}

describe('two-call questions on third-party servers, default profile, as a script', () => {
  for (const id of ['filesystem', 'memory', 'everything', 'sequential-thinking', 'playwright', 'git', 'sqlite', 'time', 'fetch']) {
    it(`answers right on ${id}`, async () => {
      const task = tasks.find((t) => t.id === id)!;
      const result = await ask(task);
      // A refused run has no answer; its text (the refusal) is what the user reads.
      expect(String(result.answer ?? JSON.stringify(result))).toMatch(task.expected);
    }, PER_TASK_TIMEOUT_MS);
  }
});

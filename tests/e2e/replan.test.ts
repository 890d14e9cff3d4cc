// A wrong server choice costs one retry, not the question: a plan calling a tool only an unchosen server has gets
// that server on its next attempt (through the built CLI, with our math and documents servers).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { builtPath } from '../../src/paths.js';
import { resultOf, runCli } from '../cli/run-cli.js';
import { ollamaChatReply, startFakeOllamaServer, type FakeLlmServer } from '../helpers/fake-ollama-server.js';
import { fenced, isPerception, MATH_SERVER_YAML, ollamaEnv, tempProject } from './ask-harness.js';

let llm: FakeLlmServer | undefined;
afterEach(async () => {
  await llm?.close();
  llm = undefined;
});

/** The plan that reads the door code from the notes. */
const SEARCH_PLAN = fenced('async function solve() { const r = await tools.search_stored_documents({ query: "door code" }); return "FINAL_ANSWER: " + (String(r).match(/\\d{4}/) ?? ["none"])[0]; }');

/** Asks for the door code in a project with our math and documents servers and a note holding it. */
async function askAboutNotes() {
  const servers = `${MATH_SERVER_YAML}  - id: documents\n    script: ${builtPath('mcp-servers/documents/main.js')}\n    description: The user's notes\n`;
  const project = tempProject({ servers, steps: 'strategy:\n  max_steps: 1\n  max_lifelines_per_step: 2\n' });
  mkdirSync(project.documentsDir, { recursive: true });
  writeFileSync(join(project.documentsDir, 'house.md'), '# House\n\nThe door code is 4711.\n');
  return resultOf(await runCli(['--profile', project.profile, '--json', 'ask', 'What is the door code in my notes?'], { env: ollamaEnv(llm!.url) }));
}

describe('re-planning with a server perception did not choose', () => {
  it('answers a question about the notes when perception picked math', async () => {
    const prompts: string[] = [];
    llm = await startFakeOllamaServer({
      replies: (req) => {
        if (req.path !== '/api/chat') return undefined;
        // Perception guesses wrong: math.
        if (isPerception(req)) return ollamaChatReply(JSON.stringify({ intent: 'notes', entities: [], tool_hint: '', selected_servers: ['math'] }));
        prompts.push(JSON.stringify(req.body));
        return ollamaChatReply(SEARCH_PLAN);
      },
    });
    const json = await askAboutNotes();
    expect(json.status).toBe('answered');
    expect(json.answer).toBe('4711');
    // One retry: the first plan was refused as an unknown tool, the second had the documents server.
    expect(json.steps.map((s: { outcome: string; servers: string[] }) => [s.outcome, s.servers])).toEqual([
      ['sandbox_error', ['math']],
      ['final_answer', ['math', 'documents']],
    ]);
    expect(prompts[0]).not.toContain('search_stored_documents(');
    expect(prompts[1]).toContain('search_stored_documents');
  }, 120_000);

  it('gives every server to a model that says none of its tools fits, instead of answering that', async () => {
    const prompts: string[] = [];
    llm = await startFakeOllamaServer({
      replies: (req) => {
        if (req.path !== '/api/chat') return undefined;
        if (isPerception(req)) return ollamaChatReply(JSON.stringify({ intent: 'notes', entities: [], tool_hint: '', selected_servers: ['math'] }));
        prompts.push(JSON.stringify(req.body));
        if (!prompts.at(-1)!.includes('search_stored_documents')) return ollamaChatReply('FINAL_ANSWER: None of the available tools can read your notes.');
        return ollamaChatReply(SEARCH_PLAN);
      },
    });
    const json = await askAboutNotes();
    expect(json.answer).toBe('4711');
    expect(json.steps.map((s: { outcome: string }) => s.outcome)).toEqual(['invalid_plan', 'final_answer']);
  }, 120_000);
});

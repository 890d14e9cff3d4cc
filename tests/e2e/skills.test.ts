// Saved plans through the built CLI: save the plan that answered, list it, run it again by name with new arguments and no model.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/paths.js';
import { resultOf, runCli } from '../cli/run-cli.js';
import { ollamaChatReply, startFakeOllamaServer, type FakeLlmServer } from '../helpers/fake-ollama-server.js';
import { decisionPrompts, fenced, isPerception, ollamaEnv, planningOllama, tempProject } from './ask-harness.js';

let server: FakeLlmServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const SUM_PLAN = fenced(`async function solve() {
  const codes = await tools.strings_to_chars_to_int({ string: "INDIA" });
  return "FINAL_ANSWER: " + codes.reduce((a, b) => a + b, 0);
}`);

describe('skills (saved plans)', () => {
  it('saves the plan that answered with the question\'s values as arguments, lists it, and runs it again with no model call', async () => {
    server = await planningOllama(() => ollamaChatReply(SUM_PLAN));
    const { root, profile } = tempProject();
    const env = ollamaEnv(server.url);
    const asked = resultOf(await runCli(['--profile', profile, '--json', 'ask', 'What is the sum of the ASCII codes of INDIA?'], { env }));
    expect(asked.answer).toBe('357');

    const saved = await runCli(['--profile', profile, 'skills', 'save', 'ascii-sum'], { env });
    expect(saved.code).toBe(0);
    expect(saved.stdout).toContain('Saved the plan of "What is the sum of the ASCII codes of {string}?" as ascii-sum (string = "INDIA")');
    const file = readFileSync(join(root, 'memory', 'skills', 'ascii-sum.yaml'), 'utf8');
    expect(file).toContain('tools.strings_to_chars_to_int({ string: args.string })');

    const listed = await runCli(['--profile', profile, 'skills'], { env });
    expect(listed.stdout).toContain('ascii-sum  (string = "INDIA")  What is the sum of the ASCII codes of {string}?');

    const requestsBefore = server.requests.length;
    const again = resultOf(await runCli(['--profile', profile, '--json', 'skills', 'run', 'ascii-sum', '{"string": "FRANCE"}'], { env }));
    expect(again).toMatchObject({ status: 'answered', answer: '431', usage: { prompt_tokens: 0, completion_tokens: 0 } });
    expect(again.steps[0].tool_calls).toEqual([expect.objectContaining({ name: 'strings_to_chars_to_int', args: { string: 'FRANCE' }, ok: true })]);
    expect(server.requests.length).toBe(requestsBefore);

    const wrong = await runCli(['--profile', profile, 'skills', 'run', 'ascii-sum', '{"word": "FRANCE"}'], { env });
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('skill "ascii-sum" has no argument "word"; its arguments: string');
  });

  it('offers saved plans to later plans as skills.NAME(args), run with their own calls', async () => {
    server = await planningOllama(() => ollamaChatReply(SUM_PLAN));
    const { profile } = tempProject();
    const env = ollamaEnv(server.url);
    resultOf(await runCli(['--profile', profile, '--json', 'ask', 'What is the sum of the ASCII codes of INDIA?'], { env }));
    expect((await runCli(['--profile', profile, 'skills', 'save', 'ascii-sum'], { env })).code).toBe(0);
    await server.close();

    server = await planningOllama(() => ollamaChatReply(fenced(`async function solve() {
  const france = Number(await skills.ascii_sum({ string: "FRANCE" }));
  const spain = Number(await skills.ascii_sum({ string: "SPAIN" }));
  let wrong;
  try { await skills.ascii_sum({ word: "X" }); } catch (e) { wrong = e.message; }
  return "FINAL_ANSWER: " + (france > spain ? "FRANCE" : "SPAIN") + " (" + france + " > " + spain + "); " + wrong;
}`)));
    const compared = resultOf(await runCli(['--profile', profile, '--json', 'ask', 'Whose ASCII sum is larger, FRANCE or SPAIN?'], { env: ollamaEnv(server.url) }));
    expect(compared.answer).toBe('FRANCE (431 > 379); skills.ascii_sum has no argument "word"; its arguments: string');
    expect(compared.steps[0].tool_calls.map((c: { args: unknown }) => c.args)).toEqual([{ string: 'FRANCE' }, { string: 'SPAIN' }]);
    const [prompt] = decisionPrompts(server);
    expect(prompt).toContain('- skills.ascii_sum({string: string}): Promise<string>  — answers "What is the sum of the ASCII codes of {string}?"');
  });

  it('/save NAME in the REPL saves the plan that just answered', async () => {
    server = await planningOllama(() => ollamaChatReply(SUM_PLAN));
    const { profile } = tempProject();
    const env = ollamaEnv(server.url);
    const repl = await runCli(['--profile', profile], { env, input: 'What is the sum of the ASCII codes of INDIA?\n/save india\n/exit\n' });
    expect(repl.stderr).toMatch(/Saved as india \(string\) in .*india\.yaml; run it with: cortex skills run india/);
    const again = resultOf(await runCli(['--profile', profile, '--json', 'skills', 'run', 'india', '{"string": "AB"}'], { env }));
    expect(again.answer).toBe('131');
  });

  it('cortex mcp offers each saved plan as a tool taking its arguments, answered with no model call', async () => {
    server = await planningOllama(() => ollamaChatReply(SUM_PLAN));
    const { profile } = tempProject();
    const env = ollamaEnv(server.url);
    await runCli(['--profile', profile, 'ask', 'What is the sum of the ASCII codes of INDIA?'], { env });
    expect((await runCli(['--profile', profile, 'skills', 'save', 'ascii-sum'], { env })).code).toBe(0);
    const client = new Client({ name: 'cortex-test', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [join(PROJECT_ROOT, 'bin', 'cortex.js'), '--profile', profile, 'mcp'], env: env as Record<string, string>, stderr: 'ignore' }));
    try {
      const tool = (await client.listTools()).tools.find((t) => t.name === 'skill_ascii-sum');
      expect(tool?.inputSchema.properties).toEqual({ string: expect.objectContaining({ type: 'string', description: 'Default: "INDIA"' }) });
      const before = server.requests.length;
      const result = await client.callTool({ name: 'skill_ascii-sum', arguments: { string: 'AB' } });
      expect(result.structuredContent).toMatchObject({ status: 'answered', answer: '131' });
      expect(server.requests.length).toBe(before);
    } finally {
      await client.close();
    }
  });

  it('runs a saved plan through the approval gate and flow policy: with nobody to ask, a destructive call is refused', async () => {
    const memoryEntry = join(PROJECT_ROOT, 'node_modules', '@modelcontextprotocol', 'server-memory', 'dist', 'index.js');
    const { root, profile } = tempProject({
      servers: `  - id: memory\n    command: ${process.execPath}\n    args: [${JSON.stringify(memoryEntry)}]\n    env:\n      MEMORY_FILE_PATH: ${JSON.stringify(join(tmpRoot(), 'memory.jsonl'))}\n    description: A knowledge graph\n`,
      steps: 'strategy:\n  max_steps: 1\n  max_lifelines_per_step: 1\n',
    });
    server = await startFakeOllamaServer({
      replies: (req) => {
        if (req.path !== '/api/chat') return undefined;
        if (isPerception(req)) return ollamaChatReply(JSON.stringify({ intent: 'edit', entities: [], tool_hint: '', selected_servers: ['memory'] }));
        return ollamaChatReply(fenced(`async function solve() {
  await tools.create_entities({ entities: [{ name: "Alice", entityType: "person", observations: ["x"] }] });
  try { await tools.delete_entities({ entityNames: ["Alice"] }); return "FINAL_ANSWER: deleted Alice"; }
  catch (e) { return "FINAL_ANSWER: kept Alice: " + e.message; }
}`));
      },
    });
    const env = ollamaEnv(server.url);
    // Allowed once with --yes, saved, then run again without it: the saved plan gets no more rights than a new one.
    expect(resultOf(await runCli(['--profile', profile, '--json', '--yes', 'ask', 'Add Alice, then delete Alice'], { env })).answer).toBe('deleted Alice');
    expect((await runCli(['--profile', profile, 'skills', 'save', 'churn'], { env })).code).toBe(0);
    expect(readFileSync(join(root, 'memory', 'skills', 'churn.yaml'), 'utf8')).toContain('args.name');
    const again = resultOf(await runCli(['--profile', profile, '--json', 'skills', 'run', 'churn', '{"name": "Bob"}'], { env }));
    // The answer's words are the plan's own; the calls took the new argument.
    expect(again.answer).toMatch(/^kept Alice: tools\.delete_entities was not run: .*nobody can be asked/);
    expect(again.steps[0].tool_calls).toEqual([
      expect.objectContaining({ name: 'create_entities', args: { entities: [expect.objectContaining({ name: 'Bob' })] }, ok: true }),
      expect.objectContaining({ name: 'delete_entities', args: { entityNames: ['Bob'] }, ok: false }),
    ]);
  });
});

function tmpRoot(): string {
  return tempProject().root;
}

// Hooks through the built CLI: real shell and node hook scripts block, rewrite and annotate calls as Claude Code's do.
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { resultOf, runCli } from '../cli/run-cli.js';
import { ollamaChatReply, type FakeLlmServer } from '../helpers/fake-ollama-server.js';
import { decisionPrompts, fenced, ollamaEnv, planningOllama, tempProject } from './ask-harness.js';

let server: FakeLlmServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Writes an executable hook script into a fresh folder; returns its path. */
function hookScript(name: string, text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'cortex-hook-')), name);
  writeFileSync(path, text);
  chmodSync(path, 0o755);
  return path;
}

/** A profile whose `hooks` section is `hooksYaml` (indented under `hooks:`). */
function hookedProject(hooksYaml: string) {
  return tempProject({ steps: 'strategy:\n  max_steps: 1\n  max_lifelines_per_step: 1\n', extra: `hooks:\n${hooksYaml}` });
}

const ADD_PLAN = fenced('async function solve() { const r = await tools.add({ a: 1, b: 2 }); return "FINAL_ANSWER: sum " + r; }');

describe('hooks', () => {
  it('a PreToolUse hook exiting 2 stops the call; its reason reaches the model\'s next prompt and the person', async () => {
    const seen = join(mkdtempSync(join(tmpdir(), 'cortex-hook-seen-')), 'input.json');
    const hook = hookScript('guard.sh', `#!/bin/bash\ncat > ${JSON.stringify(seen)}\necho "adding is closed for audit" >&2\nexit 2\n`);
    server = await planningOllama((_req, n) => ollamaChatReply(n === 1 ? ADD_PLAN : fenced('async function solve() { return "FINAL_ANSWER: not added"; }')));
    const { profile } = hookedProject(`  PreToolUse:\n    - matcher: "math\\\\.add"\n      hooks:\n        - type: command\n          command: ${JSON.stringify(hook)}\n`);
    const run = await runCli(['--profile', profile, '--json', 'ask', 'Add 1 and 2'], { env: ollamaEnv(server.url) });
    const result = resultOf(run);
    expect(result.answer).toBe('not added');
    expect(result.steps[0].tool_calls).toEqual([expect.objectContaining({ name: 'add', ok: false })]);
    expect(decisionPrompts(server)[1]).toContain('a hook blocked it: adding is closed for audit');
    expect(run.stderr).toContain('A hook stopped math.add: adding is closed for audit');
    // Claude Code's input shape, on stdin.
    const input = JSON.parse(readFileSync(seen, 'utf8'));
    expect(input).toMatchObject({ hook_event_name: 'PreToolUse', tool_name: 'mcp__math__add', tool_input: { a: 1, b: 2 }, session_id: result.session_id, question: 'Add 1 and 2', server: 'math', tool: 'add' });
  });

  it('a PreToolUse hook\'s updatedInput changes the arguments the tool gets, and PostToolUse context reaches the model', async () => {
    const rewrite = hookScript('rewrite.mjs', `#!/usr/bin/env node
let text = ''; process.stdin.on('data', (d) => (text += d)).on('end', () => {
  const event = JSON.parse(text);
  console.log(JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow', updatedInput: { ...event.tool_input, a: 40 } } }));
});\n`);
    const note = hookScript('note.sh', `#!/bin/bash\nresult=$(cat | node -e 'let t="";process.stdin.on("data",d=>t+=d).on("end",()=>console.log(JSON.parse(t).tool_response.structuredContent.result))')\necho "{\\"hookSpecificOutput\\": {\\"hookEventName\\": \\"PostToolUse\\", \\"additionalContext\\": \\"the audit log saw $result\\"}}"\n`);
    let plans = 0;
    server = await planningOllama(() => ollamaChatReply(++plans === 1 ? fenced('async function solve() { const r = await tools.add({ a: 1, b: 2 }); return "FURTHER_PROCESSING_REQUIRED: " + r; }') : fenced('async function solve() { return "FINAL_ANSWER: done"; }')));
    const { profile } = tempProject({
      steps: 'strategy:\n  max_steps: 2\n  max_lifelines_per_step: 1\n',
      extra: `hooks:\n  PreToolUse:\n    - matcher: "mcp__math__.*"\n      hooks:\n        - type: command\n          command: ${JSON.stringify(rewrite)}\n  PostToolUse:\n    - hooks:\n        - type: command\n          command: ${JSON.stringify(note)}\n          timeout: 30\n`,
    });
    const result = resultOf(await runCli(['--profile', profile, '--json', 'ask', 'Add 1 and 2'], { env: ollamaEnv(server.url) }));
    expect(result.status).toBe('answered');
    const next = decisionPrompts(server)[1]!;
    expect(next).toContain('42');
    expect(next).toContain('the audit log saw 42');
  });

  it('a hook that fails is a warning and the question is answered; a UserPromptSubmit hook exiting 2 stops the question before any model call', async () => {
    const broken = hookScript('broken.sh', '#!/bin/bash\necho "cannot reach the audit server" >&2\nexit 1\n');
    server = await planningOllama(() => ollamaChatReply(ADD_PLAN));
    const { profile } = hookedProject(`  PreToolUse:\n    - hooks:\n        - type: command\n          command: ${JSON.stringify(broken)}\n`);
    const run = await runCli(['--profile', profile, 'ask', 'Add 1 and 2'], { env: ollamaEnv(server.url) });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('sum 3');
    expect(run.stderr).toMatch(/warning: the PreToolUse hook ".*broken\.sh" failed \(exit 1\): cannot reach the audit server/);

    const refuse = hookScript('refuse.sh', '#!/bin/bash\necho "questions about money need a ticket" >&2\nexit 2\n');
    const chats = () => server!.requests.filter((r) => r.path === '/api/chat').length;
    const asked = chats();
    const stopped = hookedProject(`  UserPromptSubmit:\n    - hooks:\n        - type: command\n          command: ${JSON.stringify(refuse)}\n`);
    const refused = await runCli(['--profile', stopped.profile, '--json', 'ask', 'Add 1 and 2'], { env: ollamaEnv(server.url) });
    expect(resultOf(refused)).toMatchObject({ status: 'gave_up', reason: 'A hook stopped the question: questions about money need a ticket' });
    expect(chats()).toBe(asked);
  });

  it('a PreLLMCall hook exiting 2 stops the question before the request; a Stop hook blocking sends it back to work once with its reason', async () => {
    const gate = hookScript('no-llm.sh', '#!/bin/bash\necho "the model is off limits today" >&2\nexit 2\n');
    server = await planningOllama(() => ollamaChatReply(ADD_PLAN));
    const stopped = hookedProject(`  PreLLMCall:\n    - hooks:\n        - type: command\n          command: ${JSON.stringify(gate)}\n`);
    const result = resultOf(await runCli(['--profile', stopped.profile, '--json', 'ask', 'Add 1 and 2'], { env: ollamaEnv(server.url) }));
    expect(result).toMatchObject({ status: 'gave_up', reason: expect.stringContaining('A hook stopped the question before a request to qwen2.5-coder:7b: the model is off limits today') });
    expect(server.requests.filter((r) => r.path === '/api/chat')).toHaveLength(0);

    // Blocks the first stop only (Claude Code's stop_hook_active says when it already did).
    const check = hookScript('check.mjs', `#!/usr/bin/env node
let t = ''; process.stdin.on('data', (d) => (t += d)).on('end', () => {
  const e = JSON.parse(t);
  if (!e.stop_hook_active) console.log(JSON.stringify({ decision: 'block', reason: 'also say the answer in words' }));
});\n`);
    const again = hookedProject(`  Stop:\n    - hooks:\n        - type: command\n          command: ${JSON.stringify(check)}\n`);
    const before = decisionPrompts(server).length;
    const run = await runCli(['--profile', again.profile, 'ask', 'Add 1 and 2'], { env: ollamaEnv(server.url) });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('A hook asked to keep working: also say the answer in words');
    const prompts = decisionPrompts(server).slice(before);
    expect(prompts).toHaveLength(2);
    expect(prompts[1]).toContain("## Notes from the user's hooks\n- A check the user set up asked to keep working: also say the answer in words");
  });

  it('a hook that outlives its timeout is stopped with a warning and the call goes on', async () => {
    const slow = hookScript('slow.sh', '#!/bin/bash\nexec sleep 300\n');
    server = await planningOllama(() => ollamaChatReply(ADD_PLAN));
    const { profile } = hookedProject(`  PreToolUse:\n    - hooks:\n        - type: command\n          command: ${JSON.stringify(slow)}\n          timeout: 1\n`);
    const run = await runCli(['--profile', profile, 'ask', 'Add 1 and 2'], { env: ollamaEnv(server.url) });
    expect(run.stdout).toContain('sum 3');
    expect(run.stderr).toMatch(/the PreToolUse hook ".*slow\.sh" took longer than 1 s and was stopped/);
  });
});

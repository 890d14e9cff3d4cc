// End to end over the built CLI: the project's AGENTS.md reaches the plan request when Cortex-R runs from a subfolder,
// and /memory in the REPL lists and edits the files.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../cli/run-cli.js';
import { ollamaChatReply, type FakeLlmServer } from '../helpers/fake-ollama-server.js';
import { fenced, isPerception, ollamaEnv, planningOllama, tempProject } from './ask-harness.js';

let server: FakeLlmServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const systemOf = (messages: Array<{ role: string; content: string }>) => messages.filter((m) => m.role === 'system').map((m) => m.content).join('\n');

describe('standing instructions (end to end)', () => {
  it('sends the AGENTS.md of the repository and of the user with every plan request, and names them with -v', async () => {
    server = await planningOllama(() => ollamaChatReply(fenced('async function solve() { return "FINAL_ANSWER: " + await tools.add({ a: 20, b: 22 }); }')));
    const { root, profile } = tempProject();
    mkdirSync(join(root, '.git'));
    writeFileSync(join(root, 'AGENTS.md'), '# House rules\nAlways give amounts in euros.\n');
    const sub = join(root, 'notes', '2026');
    mkdirSync(sub, { recursive: true });
    const userDir = join(root, 'home-config');
    mkdirSync(join(userDir, 'cortex-r'), { recursive: true });
    writeFileSync(join(userDir, 'cortex-r', 'AGENTS.md'), 'Answer in one line.\n');

    const env = { ...ollamaEnv(server.url), XDG_CONFIG_HOME: userDir };
    const run = await runCli(['--profile', profile, '-v', 'ask', 'What is 20 plus 22?'], { env, cwd: sub });
    expect(run.stdout.trim()).toBe('42');
    expect(run.stderr).toContain(`standing instructions: ${join(userDir, 'cortex-r', 'AGENTS.md')}, ${join(root, 'AGENTS.md')}`);
    const chats = server.requests.filter((r) => r.path === '/api/chat');
    const plan = chats.find((r) => !isPerception(r))!;
    expect(systemOf(plan.body.messages)).toContain('Always give amounts in euros.');
    expect(systemOf(plan.body.messages)).toContain('Answer in one line.');
    // The profile's persona comes first (its defaults here: Cortex-R, concise, low verbosity).
    expect(systemOf(plan.body.messages)).toMatch(/^You are Cortex-R\. Write answers in a concise tone, with low verbosity\./);
    // Perception only chooses servers: it is not given the house rules.
    expect(systemOf(chats.find(isPerception)!.body.messages)).toBe('');
  });
});

describe('/memory in the REPL', () => {
  it('lists the AGENTS.md files in use and opens the nearest in $EDITOR', async () => {
    server = await planningOllama(() => ollamaChatReply(fenced('async function solve() { return "FINAL_ANSWER: 1"; }')));
    const root = mkdtempSync(join(tmpdir(), 'cortex-memory-cmd-'));
    mkdirSync(join(root, '.git'));
    writeFileSync(join(root, 'AGENTS.md'), '# House rules\nAlways give amounts in euros.\n');
    // An "editor" that appends a line, as a person would.
    const editor = join(root, 'editor.sh');
    writeFileSync(editor, '#!/bin/sh\necho "Reply in French." >> "$1"\n');
    chmodSync(editor, 0o755);
    const { profile } = tempProject();
    const env = { ...ollamaEnv(server.url), XDG_CONFIG_HOME: join(root, 'no-config'), EDITOR: editor, VISUAL: '' };
    const run = await runCli(['--profile', profile], { env, cwd: root, input: '/memory\n/memory edit\nexit\n' });
    expect(run.stderr).toContain(`${join(root, 'AGENTS.md')}: # House rules`);
    expect(run.stderr).toContain(`${join(root, 'AGENTS.md')} saved`);
    expect(readFileSync(join(root, 'AGENTS.md'), 'utf8')).toBe('# House rules\nAlways give amounts in euros.\nReply in French.\n');
  });
});

// The REPL without any model (it opens and says how to set one up) and its /model: listing and refusing models.
import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../cli/run-cli.js';
import { startFakeOllamaServer, type FakeLlmServer } from '../helpers/fake-ollama-server.js';
import { ollamaEnv, tempProject } from './ask-harness.js';

let server: FakeLlmServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A local URL where nothing listens (a port taken, then freed). */
async function deadUrl(): Promise<string> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

describe('cortex REPL with no model reachable', () => {
  it('opens, says no model is reachable and how to set one up, and /help, /model, /sessions and a question all answer', async () => {
    const { profile } = tempProject();
    const run = await runCli(['--profile', profile], { env: ollamaEnv(await deadUrl()), input: '/help\n/model\nwhat is 2 + 2\n/sessions\n' });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('No model is reachable, so questions cannot be answered yet.');
    expect(run.stderr).toContain('ollama serve');
    expect(run.stderr).toContain('/model [NAME]');
    expect(run.stderr).toContain('Current model: none yet');
    expect(run.stderr).toContain('Ollama (ollama:NAME): not running');
    expect(run.stderr).toContain('No model is set up, so the question was not asked.');
    expect(run.stderr).toContain('No saved sessions yet.');
    expect(run.stderr).not.toMatch(/TypeError|at .*\.js:\d+/);
  });
});

describe('cortex REPL /model', () => {
  it('lists the chat models with the current one marked, refuses a model not pulled or an embedding model naming close ones, and switches', async () => {
    server = await startFakeOllamaServer({
      models: ['qwen2.5-coder:7b', 'llama3.1:8b', 'nomic-embed-text:latest', 'granite-retriever:30m'],
      families: { 'nomic-embed-text:latest': ['nomic-bert'], 'granite-retriever:30m': ['bert'] },
      strictModels: true,
    });
    const { profile } = tempProject();
    const input = ['/model', '/model llama3.2:8b', '/model ollama:granite-retriever:30m', '/model llama3.1:8b', '/model', ''].join('\n');
    const run = await runCli(['--profile', profile, '--model', 'ollama:qwen2.5-coder:7b'], { env: ollamaEnv(server.url), input });
    expect(run.code).toBe(0);
    const [firstList, rest] = run.stderr.split('llama3.2:8b is not available');
    expect(firstList).toContain('Current model: ollama qwen2.5-coder:7b');
    expect(firstList).toContain('* qwen2.5-coder:7b  (current)');
    expect(firstList).toMatch(/^ {4}llama3\.1:8b$/m);
    // Embedding models (by name or by Ollama's family) are not offered for chat.
    expect(firstList).not.toContain('nomic-embed-text');
    expect(firstList).not.toContain('granite-retriever');
    expect(rest).toMatch(/^ from Ollama \(not pulled: `ollama pull llama3\.2:8b` fetches it\)\. Close matches: llama3\.1:8b/);
    expect(rest).toContain('Still using ollama qwen2.5-coder:7b.');
    expect(rest).toContain('granite-retriever:30m is an embedding model, not a chat model.');
    const lastList = rest!.slice(rest!.lastIndexOf('Current model:'));
    expect(lastList).toContain('Current model: ollama llama3.1:8b');
    expect(lastList).toContain('* llama3.1:8b  (current)');
    expect(lastList).toMatch(/^ {4}qwen2\.5-coder:7b$/m);
  });
});

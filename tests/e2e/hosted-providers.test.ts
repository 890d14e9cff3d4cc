// End to end over the built CLI: `--model openai:NAME` and `--model anthropic:NAME` answer through the real SDKs
// against local servers speaking the OpenAI and Anthropic wire formats, streamed, with the key sent.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { resultOf, runCli } from '../cli/run-cli.js';
import { anthropicKeySent, anthropicMessages, anthropicTextReply, anthropicToolReply, startFakeAnthropicServer } from '../helpers/fake-anthropic-server.js';
import type { FakeLlmServer, FakeReply, RecordedRequest } from '../helpers/fake-ollama-server.js';
import { openAiChatReply, openAiChats, startFakeOpenAiServer } from '../helpers/fake-openai-server.js';
import { PERCEPTION_JSON, fenced, ollamaEnv, tempProject } from './ask-harness.js';

const POWER_PLAN = `async function solve() { return "FINAL_ANSWER: " + await tools.power({ a: 2, b: 10 }); }`;
/** No Ollama and no other hosted key: only the provider under test can answer. */
const NO_OLLAMA = 'http://127.0.0.1:9';

const servers: FakeLlmServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** The text of every message of a chat or Messages request. */
const promptOf = (request: RecordedRequest): string =>
  (request.body?.messages ?? []).map((m: { content: unknown }) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content))).join('\n') +
  (typeof request.body?.system === 'string' ? request.body.system : '');

async function openAiPlanner(decide: () => string): Promise<FakeLlmServer> {
  const server = await startFakeOpenAiServer({
    apiKey: 'sk-e2e-secret',
    models: ['fake-gpt'],
    strictModels: true,
    replies: (req) => (req.path !== '/v1/chat/completions' ? undefined : openAiChatReply(req.body?.response_format ? PERCEPTION_JSON : decide())),
  });
  servers.push(server);
  return server;
}

async function anthropicPlanner(decide: () => FakeReply): Promise<FakeLlmServer> {
  const server = await startFakeAnthropicServer({
    apiKey: 'ant-e2e-secret',
    models: ['claude-fake'],
    strictModels: true,
    replies: (req) => (req.path !== '/v1/messages' ? undefined : req.body?.tools ? anthropicToolReply(JSON.parse(PERCEPTION_JSON)) : decide()),
  });
  servers.push(server);
  return server;
}

describe('hosted providers (end to end)', () => {
  it('cortex --model openai:NAME ask answers, streamed, with the key sent as a bearer token and never shown', async () => {
    const llm = await openAiPlanner(() => fenced(POWER_PLAN));
    const { profile } = tempProject();
    const env = { ...ollamaEnv(NO_OLLAMA), OPENAI_BASE_URL: `${llm.url}/v1`, OPENAI_API_KEY: 'sk-e2e-secret' };
    const run = await runCli(['--profile', profile, '-v', '--model', 'openai:fake-gpt', 'ask', 'What is 2^10?'], { env });
    expect(run.stdout.trim()).toBe('1024');
    expect(run.code).toBe(0);
    // -v shows the plan as its text streams in: the llm_text events every view reads.
    expect(run.stderr).toContain('── plan for step 1 ──');
    expect(run.stderr).toContain('tools.power');
    const chats = openAiChats(llm);
    expect(chats).toHaveLength(2);
    for (const chat of chats) {
      expect(chat.headers.authorization).toBe('Bearer sk-e2e-secret');
      expect(chat.body).toMatchObject({ model: 'fake-gpt', stream: true, stream_options: { include_usage: true } });
    }
    expect(chats[0]!.body.response_format.type).toBe('json_schema');
    expect(promptOf(chats[1]!)).toContain('What is 2^10?');
    expect(run.stdout + run.stderr).not.toContain('sk-e2e-secret');
  });

  it('cortex --model anthropic:NAME ask answers, streamed, perception through a forced tool, with the key sent', async () => {
    const llm = await anthropicPlanner(() => anthropicTextReply(fenced(POWER_PLAN)));
    const { profile } = tempProject();
    const env = { ...ollamaEnv(NO_OLLAMA), ANTHROPIC_BASE_URL: llm.url, ANTHROPIC_API_KEY: 'ant-e2e-secret' };
    const run = await runCli(['--profile', profile, '-v', '--json', '--model', 'anthropic:claude-fake', 'ask', 'What is 2^10?'], { env });
    const json = resultOf(run);
    expect(json).toMatchObject({ status: 'answered', answer: '1024' });
    expect(json.usage.prompt_tokens).toBeGreaterThan(0);
    expect(run.stderr).toContain('── plan for step 1 ──');
    const messages = anthropicMessages(llm);
    expect(messages).toHaveLength(2);
    expect(messages.map(anthropicKeySent)).toEqual(['ant-e2e-secret', 'ant-e2e-secret']);
    expect(messages[0]!.body.tool_choice).toEqual({ type: 'tool', name: 'answer' });
    expect(messages[1]!.body).toMatchObject({ model: 'claude-fake', stream: true });
    expect(run.stdout + run.stderr).not.toContain('ant-e2e-secret');
  });

  it('runs a <tool_call> reply from an OpenAI-compatible model without a retry', async () => {
    const replies = ['<tool_call>\n{"name": "power", "arguments": {"a": 2, "b": 10}}\n</tool_call>', 'FINAL_ANSWER: 1024'];
    const llm = await openAiPlanner(() => replies.shift() ?? 'no more replies');
    const { profile } = tempProject();
    const env = { ...ollamaEnv(NO_OLLAMA), OPENAI_BASE_URL: `${llm.url}/v1`, OPENAI_API_KEY: 'sk-e2e-secret' };
    const run = await runCli(['--profile', profile, '--json', '--model', 'openai:fake-gpt', 'ask', 'What is 2^10?'], { env });
    const json = resultOf(run);
    expect(json).toMatchObject({ status: 'answered', answer: '1024' });
    // The call ran on the first try: its step has the tool call and no error, and the next step only answered.
    expect(json.steps[0]).toMatchObject({ error: null });
    expect(json.steps[0].tool_calls.map((c: { name: string; ok: boolean }) => [c.name, c.ok])).toEqual([['power', true]]);
    expect(json.steps.every((s: { error: unknown }) => s.error === null)).toBe(true);
  });

  it('reads the key and the server from a .env in the working folder, and never shows the key', async () => {
    const llm = await openAiPlanner(() => fenced(POWER_PLAN));
    const { root, profile } = tempProject();
    writeFileSync(join(root, '.env'), `# local server\nOPENAI_BASE_URL=${llm.url}/v1\nOPENAI_API_KEY="sk-e2e-secret"\n`);
    const run = await runCli(['--profile', profile, '-v', '--model', 'openai:fake-gpt', 'ask', 'What is 2^10?'], { env: ollamaEnv(NO_OLLAMA), cwd: root });
    expect(run.stdout.trim()).toBe('1024');
    expect(openAiChats(llm)[0]!.headers.authorization).toBe('Bearer sk-e2e-secret');
    expect(run.stderr).toMatch(/read .*\.env: .*OPENAI_API_KEY/);
    expect(run.stdout + run.stderr).not.toContain('sk-e2e-secret');
  });

  it('asks perception and decision the models profiles.yaml gives them, with each model entry’s settings', async () => {
    const claude = await anthropicPlanner(() => anthropicTextReply('never: decision goes to the other model'));
    const gpt = await openAiPlanner(() => fenced(POWER_PLAN));
    const models = `models:\n  gpt:\n    type: openai\n    model: fake-gpt\n    base_url: ${gpt.url}/v1\n    temperature: 0.3\n    max_output_tokens: 900\n`;
    const { root, profile } = tempProject({ extra: 'llm:\n  perception: anthropic:claude-fake\n  decision: gpt\n' });
    const modelsFile = join(root, 'models.yaml');
    writeFileSync(modelsFile, models);
    const env = { ...ollamaEnv(NO_OLLAMA), ANTHROPIC_BASE_URL: claude.url, ANTHROPIC_API_KEY: 'ant-e2e-secret', OPENAI_API_KEY: 'sk-e2e-secret' };
    const run = await runCli(['--profile', profile, '--models', modelsFile, '-v', 'ask', 'What is 2^10?'], { env });
    expect(run.stdout.trim()).toBe('1024');
    expect(run.stderr).toContain('model for perception: anthropic:claude-fake (anthropic claude-fake)');
    expect(run.stderr).toContain('model for decision: gpt (openai fake-gpt)');
    expect(anthropicMessages(claude).map((r) => Boolean(r.body.tools))).toEqual([true]);
    const chats = openAiChats(gpt);
    expect(chats).toHaveLength(1);
    expect(chats[0]!.body).toMatchObject({ temperature: 0.3, max_tokens: 900 });
    expect(chats[0]!.body.response_format).toBeUndefined();
  });

  it('names the models the server has when --model names one it does not serve', async () => {
    const llm = await openAiPlanner(() => fenced(POWER_PLAN));
    const { profile } = tempProject();
    const env = { ...ollamaEnv(NO_OLLAMA), OPENAI_BASE_URL: `${llm.url}/v1`, OPENAI_API_KEY: 'sk-e2e-secret' };
    const run = await runCli(['--profile', profile, '--model', 'openai:gpt-9', 'ask', 'What is 2^10?'], { env });
    expect(run.code).toBe(3);
    expect(run.stderr).toContain('"gpt-9" is not available');
    expect(run.stderr).toContain('Available: fake-gpt');
  });
});

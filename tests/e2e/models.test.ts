// End to end over the built CLI: the shipped models config against a Gemini that serves only current names, a long
// prompt that fits Ollama's window because num_ctx was sized, and `cortex models`.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PROJECT_ROOT, builtPath } from '../../src/paths.js';
import { runCli, resultOf } from '../cli/run-cli.js';
import { geminiRoute, geminiTextReply, startFakeGeminiServer } from '../helpers/fake-gemini-server.js';
import {
  FAKE_CHARS_PER_TOKEN,
  FAKE_DEFAULT_NUM_CTX,
  ollamaChatReply,
  startFakeOllamaServer,
  type FakeLlmServer,
  type RecordedRequest,
} from '../helpers/fake-ollama-server.js';
import { MATH_SERVER_YAML, PERCEPTION_JSON, fenced, isPerception, ollamaEnv, promptOf, tempProject } from './ask-harness.js';

/** The models file we ship. */
const SHIPPED_MODELS = join(PROJECT_ROOT, 'config', 'models.yaml');
/** The first words of every decision prompt: lost when Ollama keeps only the end of a long prompt. */
const RULES_MARKER = 'You are the decision stage of Cortex-R';
const POWER_PLAN = `async function solve() { return "FINAL_ANSWER: " + await tools.power({ a: 2, b: 10 }); }`;

const servers: FakeLlmServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
async function keep(server: Promise<FakeLlmServer>): Promise<FakeLlmServer> {
  servers.push(await server);
  return servers.at(-1)!;
}

const geminiPlanner = (req: RecordedRequest) => {
  if (geminiRoute(req)?.method !== 'generateContent') return undefined;
  return req.body?.generationConfig?.responseMimeType === 'application/json' ? geminiTextReply(PERCEPTION_JSON) : geminiTextReply(fenced(POWER_PLAN));
};

describe('models that are current (end to end)', () => {
  it('answers with the shipped models.yaml against a Gemini that serves only current model names', async () => {
    const gemini = await keep(startFakeGeminiServer({ currentOnly: true, apiKey: 'test-key', replies: geminiPlanner }));
    const { profile } = tempProject();
    const env = { ...ollamaEnv('http://127.0.0.1:9'), GEMINI_API_KEY: 'test-key', GEMINI_BASE_URL: gemini.url };
    const run = await runCli(['--profile', profile, '--models', SHIPPED_MODELS, 'ask', 'What is 2^10?'], { env });
    expect(run.stderr).not.toMatch(/not available|404/);
    expect(run.stdout.trim()).toBe('1024');
    expect(run.code).toBe(0);
    const models = new Set(gemini.requests.map(geminiRoute).flatMap((r) => (r ? [r.model] : [])));
    expect([...models]).toEqual(['gemini-flash-latest']);
  });

  it('names the setting to change and the models that exist when the configured Gemini model is shut down', async () => {
    const gemini = await keep(startFakeGeminiServer({ currentOnly: true, apiKey: 'test-key', replies: geminiPlanner }));
    const { profile } = tempProject();
    const env = { ...ollamaEnv('http://127.0.0.1:9'), GEMINI_API_KEY: 'test-key', GEMINI_BASE_URL: gemini.url };
    const run = await runCli(['--profile', profile, '--models', SHIPPED_MODELS, '--model', 'gemini:gemini-2.0-flash', 'ask', 'What is 2^10?'], { env });
    expect(run.code).toBe(3);
    expect(run.stderr).toContain('"gemini-2.0-flash" is not available');
    expect(run.stderr).toContain('--model or llm.text_generation');
    expect(run.stderr).toContain('gemini-flash-latest');
  });
});

describe('prompts that fit (end to end)', () => {
  it("keeps the rules of a prompt made long by a question with background and a fourth server with 40 tools in the truncating Ollama's window", async () => {
    const decisions: RecordedRequest[] = [];
    const ollama = await keep(
      startFakeOllamaServer({
        truncateToNumCtx: true,
        replies: (req) => {
          if (req.path !== '/api/chat') return undefined;
          if (isPerception(req)) {
            return ollamaChatReply(JSON.stringify({ intent: 'compute', entities: [], tool_hint: 'power', selected_servers: ['math', 'documents', 'websearch', 'inventory'] }));
          }
          decisions.push(req);
          // A model that never saw the rules answers in prose, as small models do.
          return ollamaChatReply(promptOf(req).includes(RULES_MARKER) ? fenced(POWER_PLAN) : 'FINAL_ANSWER: I cannot tell.');
        },
      }),
    );
    const builtIn = (id: string) => `  - id: ${id}\n    script: ${builtPath(`mcp-servers/${id}/main.js`)}\n    description: built-in ${id}\n`;
    const inventory = `  - id: inventory\n    command: ${process.execPath}\n    args: [${join(PROJECT_ROOT, 'tests', 'fixtures', 'many-tools-server.mjs')}]\n    description: the inventory system\n`;
    const { profile } = tempProject({ servers: MATH_SERVER_YAML + builtIn('documents') + builtIn('websearch') + inventory });
    // 60 tools are past the tool-search threshold, so the catalogue is a short index: the background makes the prompt long.
    const question = `What is 2^10? Background: ${'The inventory system keeps records of every shelf and supplier. '.repeat(150)}`;
    const run = await runCli(['--profile', profile, '--json', 'ask', question], { env: ollamaEnv(ollama.url) });
    expect(resultOf(run)).toMatchObject({ status: 'answered', answer: '1024' });
    const sent = decisions[0]!.sentBody;
    const sentChars = (sent.messages as Array<{ content: string }>).map((m) => m.content).join('\n').length;
    // Without num_ctx Ollama would have kept only the last 2,048 tokens: the rules would be gone.
    expect(sentChars).toBeGreaterThan(FAKE_DEFAULT_NUM_CTX * FAKE_CHARS_PER_TOKEN);
    expect(sent.options.num_ctx * FAKE_CHARS_PER_TOKEN).toBeGreaterThanOrEqual(sentChars);
  });
});

describe('cortex models (end to end)', () => {
  it('lists what each provider serves, marks the default and says what auto picks', async () => {
    const gemini = await keep(startFakeGeminiServer({ currentOnly: true, apiKey: 'test-key' }));
    const ollama = await keep(startFakeOllamaServer({ models: ['llama3.1:8b', 'nomic-embed-text:latest'] }));
    const { profile } = tempProject();
    const env = { ...ollamaEnv(ollama.url), GEMINI_API_KEY: 'test-key', GEMINI_BASE_URL: gemini.url };
    const run = await runCli(['--profile', profile, '--models', SHIPPED_MODELS, 'models'], { env });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`Gemini at ${gemini.url}: 4 models`);
    expect(run.stdout).toMatch(/\* gemini-flash-latest .*\(default, auto\)/);
    expect(run.stdout).toContain(`Ollama at ${ollama.url}: 1 model`);
    expect(run.stdout).toContain('llama3.1:8b');
    expect(run.stdout).not.toContain('nomic-embed-text');
    expect(run.stdout).toContain('Default (llm.text_generation: auto): gemini gemini-flash-latest');

    const json = JSON.parse((await runCli(['--profile', profile, '--models', SHIPPED_MODELS, '--json', 'models'], { env })).stdout);
    expect(json.auto).toEqual({ provider: 'gemini', model: 'gemini-flash-latest' });
    expect(json.providers.map((p: { provider: string; status: string }) => `${p.provider}:${p.status}`)).toEqual(['gemini:listed', 'anthropic:no_key', 'openai:no_key', 'ollama:listed']);
  });

  it('says Gemini has no key and Ollama is not running, and that auto finds nothing', async () => {
    const { profile } = tempProject();
    const run = await runCli(['--profile', profile, '--models', SHIPPED_MODELS, 'models'], { env: ollamaEnv('http://127.0.0.1:9') });
    // As `ask` would exit: no LLM (3), so a script can check before asking.
    expect(run.code).toBe(3);
    expect(run.stdout).toContain('no key: export GEMINI_API_KEY');
    expect(run.stdout).toContain('Ollama at http://127.0.0.1:9: not running');
    expect(run.stdout).toContain('Anthropic at https://api.anthropic.com: no key: export ANTHROPIC_API_KEY');
    expect(run.stdout).toContain('OpenAI-compatible at https://api.openai.com/v1: no key: export OPENAI_API_KEY=<key>, or OPENAI_BASE_URL');
    expect(run.stdout).toMatch(/Default \(llm.text_generation: auto\): none: No LLM is available/);
  });

  it('says when the default model is not among those the provider serves', async () => {
    const gemini = await keep(startFakeGeminiServer({ currentOnly: true, apiKey: 'test-key' }));
    const { profile } = tempProject();
    const env = { ...ollamaEnv('http://127.0.0.1:9'), GEMINI_API_KEY: 'test-key', GEMINI_BASE_URL: gemini.url };
    const run = await runCli(['--profile', profile, '--models', SHIPPED_MODELS, '--model', 'gemini:gemini-2.0-flash', 'models'], { env });
    expect(run.stdout).toContain('Default ("gemini:gemini-2.0-flash"): gemini gemini-2.0-flash');
    expect(run.stdout).toContain('not served: gemini does not serve gemini-2.0-flash');
    expect(run.code).toBe(3);
    expect(run.stdout).toContain('auto would pick: gemini gemini-flash-latest');
  });

  it("says auto uses a pulled model when the default one is not pulled", async () => {
    const ollama = await keep(startFakeOllamaServer({ models: ['llama3.1:8b'] }));
    const { profile } = tempProject();
    const run = await runCli(['--profile', profile, '--models', SHIPPED_MODELS, 'models'], { env: ollamaEnv(ollama.url) });
    expect(run.stdout).toMatch(/\* llama3.1:8b\s+\(default, auto\)/);
    expect(run.stdout).toContain('qwen2.5-coder:7b is not pulled, so auto uses llama3.1:8b');
  });
});

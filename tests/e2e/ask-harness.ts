// End-to-end harness: a temp project (profile, memory) whose LLM is a local fake speaking a real wire format.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { builtPath } from '../../src/paths.js';
import { ollamaChatReply, startFakeOllamaServer, type FakeLlmServer, type FakeOllamaOptions, type FakeReply, type RecordedRequest } from '../helpers/fake-ollama-server.js';

/** The real math server, as a profile's mcp_servers entry. */
export const MATH_SERVER_YAML = `  - id: math\n    script: ${builtPath('mcp-servers/math/main.js')}\n    description: Arithmetic and ASCII codes\n`;

/**
 * A temp project: profile (default: the real math server, 3 steps × 2 lifelines), memory, documents and index
 * folders inside it. `sandbox` sets sandbox limits; `servers` replaces the mcp_servers entries; `extra` is
 * more profile YAML (e.g. a `security:` section).
 */
export function tempProject({
  sandbox = {},
  servers = MATH_SERVER_YAML,
  steps = 'strategy:\n  max_steps: 3\n  max_lifelines_per_step: 2\n',
  extra = '',
}: { sandbox?: Record<string, number>; servers?: string; steps?: string; extra?: string } = {}): {
  root: string;
  profile: string;
  memoryDir: string;
  documentsDir: string;
} {
  const root = mkdtempSync(join(tmpdir(), 'cortex-e2e-'));
  const memoryDir = join(root, 'memory');
  const documentsDir = join(root, 'documents');
  const sandboxYaml = Object.entries(sandbox).map(([k, v]) => `  ${k}: ${v}\n`).join('');
  const profile = join(root, 'profiles.yaml');
  writeFileSync(
    profile,
    steps +
      (sandboxYaml ? `sandbox:\n${sandboxYaml}` : '') +
      extra +
      `paths:\n  memory: ${memoryDir}\n  documents: ${documentsDir}\n  faiss_index: ${join(root, 'faiss_index')}\n` +
      `mcp_servers:\n${servers}`,
  );
  return { root, profile, memoryDir, documentsDir };
}

/** Variables that would make `auto` choose a hosted model instead of the fake Ollama. */
const HOSTED_MODEL_VARIABLES = ['GEMINI_API_KEY', 'GOOGLE_API_KEY', 'ANTHROPIC_API_KEY', 'ANTHROPIC_BASE_URL', 'OPENAI_API_KEY', 'OPENAI_BASE_URL'];

/** The environment of a CLI run with no hosted model's key and Ollama at `host`. */
export function ollamaEnv(host: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, OLLAMA_HOST: host };
  for (const name of HOSTED_MODEL_VARIABLES) delete env[name];
  return env;
}

/** Perception asks for JSON (Ollama `format`); decision does not. */
export function isPerception(request: RecordedRequest): boolean {
  return request.path === '/api/chat' && request.body?.format !== undefined;
}

/** All the text of an Ollama chat request. */
export function promptOf(request: RecordedRequest): string {
  return (request.body?.messages ?? []).map((m: { content: string }) => m.content).join('\n');
}

export const PERCEPTION_JSON = JSON.stringify({
  intent: 'compute',
  entities: ['INDIA'],
  tool_hint: 'strings_to_chars_to_int',
  selected_servers: ['math'],
});

/** Wraps code as a model would answer: prose and a fence. */
export const fenced = (code: string) => `Here is the plan.\n\`\`\`javascript\n${code}\n\`\`\`\n`;

/**
 * A fake Ollama whose perception picks math (PERCEPTION_JSON) and whose n-th plan request (from 1) is answered by
 * `decide`; `options` are the fake's other settings (models, strictModels…).
 */
export function planningOllama(
  decide: (request: RecordedRequest, n: number) => FakeReply,
  options: Omit<FakeOllamaOptions, 'replies'> = {},
): Promise<FakeLlmServer> {
  let n = 0;
  return startFakeOllamaServer({
    ...options,
    replies: (req) => {
      if (req.path !== '/api/chat') return undefined;
      if (isPerception(req)) return ollamaChatReply(PERCEPTION_JSON);
      return decide(req, ++n);
    },
  });
}

/** The prompts of the plan requests a fake Ollama received, in order. */
export function decisionPrompts(server: FakeLlmServer): string[] {
  return server.requests.filter((r) => r.path === '/api/chat' && !isPerception(r)).map(promptOf);
}

// Benchmark: how long the decision prompt is with our three servers and with three reference servers added
// (perception selecting every server), and the num_ctx the Ollama client sends for it.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { estimatePromptTokens } from '../src/llm/token-estimate.js';
import { PROJECT_ROOT } from '../src/paths.js';
import { benchEnv, runCli } from './instant-llm.js';
import type { Figure } from './stats.js';

const CLI_TIMEOUT_MS = 60_000;
const PLAN = '```js\nasync function solve() { return "FINAL_ANSWER: " + await tools.add({ a: 2, b: 3 }); }\n```';
const reference = (name: string) => join(PROJECT_ROOT, 'node_modules', '@modelcontextprotocol', `server-${name}`, 'dist', 'index.js');

interface Seen {
  prompt: string;
  numCtx?: number;
}

/** An Ollama-speaking server: perception selects every server in `ids`; decisions get PLAN; each decision prompt is kept. */
async function recordingLlm(ids: () => string[], seen: Seen[]): Promise<{ url: string; close: () => void }> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      if (req.url === '/api/version') return res.end('{"version":"0.0.0"}');
      if (req.url === '/api/tags') return res.end('{"models":[{"name":"qwen2.5-coder:7b"}]}');
      if (req.url === '/api/show') return res.end('{"model_info":{"general.architecture":"qwen2","qwen2.context_length":32768}}');
      const request = JSON.parse(body || '{}') as { format?: unknown; messages?: Array<{ content: string }>; options?: { num_ctx?: number } };
      const prompt = (request.messages ?? []).map((m) => m.content).join('\n');
      let content = PLAN;
      if (request.format) content = JSON.stringify({ intent: 'add', entities: [], tool_hint: 'add', selected_servers: ids() });
      else seen.push({ prompt, ...(request.options?.num_ctx ? { numCtx: request.options.num_ctx } : {}) });
      res.end(JSON.stringify({ model: 'bench', created_at: new Date().toISOString(), message: { role: 'assistant', content }, done: true, prompt_eval_count: 0, eval_count: 0 }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
}

export async function runPromptTokensBench(): Promise<Figure[]> {
  const root = mkdtempSync(join(tmpdir(), 'cortex-bench-'));
  const profile = join(root, 'profiles.yaml');
  writeFileSync(
    profile,
    readFileSync(join(PROJECT_ROOT, 'config', 'profiles.yaml'), 'utf8')
      .replace(/^( {2}memory:) memory$/m, `$1 ${join(root, 'memory')}`)
      .replace(/script: dist\//g, `script: ${PROJECT_ROOT}/dist/`),
  );
  const referenceFile = join(root, 'reference.json');
  const node = (name: string, args: string[] = [], env: Record<string, string> = {}) => ({ command: 'node', args: [reference(name), ...args], env });
  writeFileSync(
    referenceFile,
    JSON.stringify({
      mcpServers: {
        filesystem: node('filesystem', [root]),
        memory: node('memory', [], { MEMORY_FILE_PATH: join(root, 'memory.jsonl') }),
        'sequential-thinking': node('sequential-thinking'),
      },
    }),
  );
  const figures: Figure[] = [];
  for (const [label, ids, extra] of [
    ['3 servers (ours)', ['math', 'documents', 'websearch'], []],
    ['6 servers (ours + filesystem, memory, sequential-thinking)', ['math', 'documents', 'websearch', 'filesystem', 'memory', 'sequential-thinking'], ['--mcp-config', referenceFile]],
  ] as const) {
    const seen: Seen[] = [];
    const llm = await recordingLlm(() => [...ids], seen);
    try {
      const run = await runCli(['--profile', profile, ...extra, '--json', 'ask', 'What is 2 + 3?'], { ...benchEnv(), OLLAMA_HOST: llm.url }, CLI_TIMEOUT_MS);
      if (run.code !== 0 || !seen[0]) throw new Error(`prompt-tokens bench: the ask did not answer (exit ${run.code})`);
    } finally {
      llm.close();
    }
    const { prompt, numCtx } = seen[0]!;
    figures.push({ bench: 'prompt-tokens', name: `decision prompt, ${label}: characters`, value: prompt.length, unit: 'chars', runs: 1 });
    figures.push({ bench: 'prompt-tokens', name: `decision prompt, ${label}: tokens at 4 chars/token`, value: Math.ceil(prompt.length / 4), unit: 'tokens', runs: 1 });
    figures.push({ bench: 'prompt-tokens', name: `decision prompt, ${label}: tokens as the client sizes them (UTF-8 bytes / 3)`, value: estimatePromptTokens(prompt), unit: 'tokens', runs: 1 });
    figures.push({ bench: 'prompt-tokens', name: `decision prompt, ${label}: num_ctx sent`, value: numCtx ?? 0, unit: 'tokens', runs: 1 });
  }
  return figures;
}

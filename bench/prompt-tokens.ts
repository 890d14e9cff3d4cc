// Benchmark: how long the decision prompt is with our three servers and with three reference servers added
// (perception selecting every server), and the num_ctx the Ollama client sends for it.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { estimatePromptTokens } from '../src/llm/token-estimate.js';
import { PROJECT_ROOT } from '../src/paths.js';
import { benchEnv, runCli, startInstantLlm } from './instant-llm.js';
import type { Figure } from './stats.js';

const CLI_TIMEOUT_MS = 60_000;
const PLAN = '```js\nasync function solve() { return "FINAL_ANSWER: " + await tools.add({ a: 2, b: 3 }); }\n```';
const reference = (name: string) => join(PROJECT_ROOT, 'node_modules', '@modelcontextprotocol', `server-${name}`, 'dist', 'index.js');

interface Seen {
  prompt: string;
  numCtx?: number;
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
    // Perception selects every server in `ids`; each decision prompt is kept.
    const llm = await startInstantLlm(() => PLAN, {
      selectedServers: () => [...ids],
      onDecision: (prompt, numCtx) => seen.push({ prompt, ...(numCtx ? { numCtx } : {}) }),
      modelInfo: true,
    });
    try {
      const run = await runCli(['--profile', profile, ...extra, '--json', 'ask', 'What is 2 + 3?'], { ...benchEnv(), OLLAMA_HOST: llm.url }, CLI_TIMEOUT_MS);
      if (run.code !== 0 || !seen[0]) throw new Error(`prompt-tokens bench: the ask did not answer (exit ${run.code})`);
    } finally {
      llm.server.close();
    }
    const { prompt, numCtx } = seen[0]!;
    figures.push({ bench: 'prompt-tokens', name: `decision prompt, ${label}: characters`, value: prompt.length, unit: 'chars', runs: 1 });
    figures.push({ bench: 'prompt-tokens', name: `decision prompt, ${label}: tokens at 4 chars/token`, value: Math.ceil(prompt.length / 4), unit: 'tokens', runs: 1 });
    figures.push({ bench: 'prompt-tokens', name: `decision prompt, ${label}: tokens as the client sizes them (UTF-8 bytes / 3)`, value: estimatePromptTokens(prompt), unit: 'tokens', runs: 1 });
    figures.push({ bench: 'prompt-tokens', name: `decision prompt, ${label}: num_ctx sent`, value: numCtx ?? 0, unit: 'tokens', runs: 1 });
  }
  return figures;
}

// Benchmark: a plan that fires 5,000 tool calls at once (cap 20) through the built CLI, then an ordinary question.
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../src/paths.js';
import { median, round, type Figure } from './stats.js';

const RUNS = 3;
/** Calls the flood plan fires at once. */
export const FLOOD_CALLS = 5_000;
/** A CLI run in the benchmark is abandoned past this. */
const CLI_TIMEOUT_MS = 180_000;

const FLOOD_PLAN =
  '```js\nasync function solve() {\n' +
  `  const settled = await Promise.allSettled(Array.from({ length: ${FLOOD_CALLS} }, (_, i) => tools.add({ a: i, b: 1 })));\n` +
  '  return "FINAL_ANSWER: " + settled.filter((s) => s.status === "fulfilled").length + " calls answered";\n}\n```';
const PLAIN_PLAN = '```js\nasync function solve() { return "FINAL_ANSWER: " + await tools.add({ a: 2, b: 3 }); }\n```';

/** Which plan the instant LLM hands out next. */
let nextPlan = FLOOD_PLAN;

/** An Ollama-speaking server that answers at once: perception JSON, then `nextPlan`. */
function startInstantLlm(): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      if (req.url === '/api/version') return res.end('{"version":"0.0.0"}');
      const request = JSON.parse(body || '{}') as { format?: unknown };
      const content = request.format
        ? JSON.stringify({ intent: 'add', entities: [], tool_hint: 'add', selected_servers: ['math'] })
        : nextPlan;
      res.end(JSON.stringify({ model: 'instant', created_at: new Date().toISOString(), message: { role: 'assistant', content }, done: true, prompt_eval_count: 10, eval_count: 10 }));
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })));
}

function runCli(args: string[], env: NodeJS.ProcessEnv): Promise<{ ms: number; stdout: string; code: number | null }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(PROJECT_ROOT, 'bin', 'cortex.js'), ...args], { env, timeout: CLI_TIMEOUT_MS, stdio: ['ignore', 'pipe', 'ignore'] });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ ms: performance.now() - started, stdout, code }));
  });
}

export async function runCallFloodBench(): Promise<Figure[]> {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  delete env.GEMINI_API_KEY;
  delete env.GOOGLE_API_KEY;
  const { server, url } = await startInstantLlm();
  try {
    const root = mkdtempSync(join(tmpdir(), 'cortex-bench-'));
    const profile = join(root, 'profiles.yaml');
    writeFileSync(
      profile,
      'strategy:\n  max_steps: 1\n  max_lifelines_per_step: 1\nsandbox:\n  max_tool_calls_per_plan: 20\n' +
        `paths:\n  memory: ${join(root, 'memory')}\n  documents: ${join(root, 'documents')}\n  faiss_index: ${join(root, 'faiss_index')}\n` +
        `mcp_servers:\n  - id: math\n    script: ${join(PROJECT_ROOT, 'dist', 'mcp-servers', 'math', 'main.js')}\n    description: Arithmetic\n`,
    );
    const askEnv = { ...env, OLLAMA_HOST: url };
    const flood: number[] = [];
    const next: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      nextPlan = FLOOD_PLAN;
      const a = await runCli(['--profile', profile, '--json', 'ask', `flood the math server ${i}`], askEnv);
      if (a.code === null) throw new Error('the flood run was killed at the benchmark timeout');
      flood.push(a.ms);
      const session = (JSON.parse(a.stdout) as { session_id: string }).session_id;
      nextPlan = PLAIN_PLAN;
      const b = await runCli(['--profile', profile, '--json', '--session', session, 'ask', 'What is 2 + 3?'], askEnv);
      if ((JSON.parse(b.stdout) as { status: string }).status !== 'answered') throw new Error(`the question after the flood did not answer: ${b.stdout.slice(0, 300)}`);
      next.push(b.ms);
    }
    return [
      { bench: 'call-flood', name: `${FLOOD_CALLS} calls at once, cap 20: wall`, value: round(median(flood)), unit: 'ms', runs: RUNS },
      { bench: 'call-flood', name: 'next question in the same session: wall', value: round(median(next)), unit: 'ms', runs: RUNS },
    ];
  } finally {
    server.close();
  }
}

// Benchmark: cold start of the CLI — `cortex servers list`, and a one-step `cortex ask` against an instant local LLM.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config/load-config.js';
import { PROJECT_ROOT } from '../src/paths.js';
import { median, round, type Figure } from './stats.js';

const RUNS = 5;
/** A CLI run in the benchmark is abandoned past this. */
const CLI_TIMEOUT_MS = 60_000;

const PLAN = '```js\nasync function solve() { return "FINAL_ANSWER: " + await tools.add({ a: 2, b: 3 }); }\n```';

/** An Ollama-speaking server that answers at once: perception JSON, then the plan above. */
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
        : PLAN;
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

function findTrace(dir: string, sessionId: string): string {
  const entry = readdirSync(dir, { recursive: true, withFileTypes: true }).find((e) => e.name === `session-${sessionId}.trace.jsonl`);
  if (!entry) throw new Error(`no trace for ${sessionId}`);
  return join(entry.parentPath, entry.name);
}

export async function runColdStartBench(): Promise<Figure[]> {
  const figures: Figure[] = [];
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  delete env.GEMINI_API_KEY;
  delete env.GOOGLE_API_KEY;

  const list: number[] = [];
  await runCli(['servers', 'list'], env);
  for (let i = 0; i < RUNS; i++) list.push((await runCli(['servers', 'list'], env)).ms);
  const servers = loadConfig().servers.length;
  figures.push({ bench: 'cold-start', name: `cortex servers list (${servers} servers)`, value: round(median(list)), unit: 'ms', runs: RUNS, target: '≤ 1000 ms', ok: median(list) <= 1000 });

  const { server, url } = await startInstantLlm();
  try {
    const root = mkdtempSync(join(tmpdir(), 'cortex-bench-'));
    const profile = join(root, 'profiles.yaml');
    const config = readFileSync(join(PROJECT_ROOT, 'config', 'profiles.yaml'), 'utf8')
      .replace(/^( {2}memory:) memory$/m, `$1 ${join(root, 'memory')}`)
      .replace(/script: dist\//g, `script: ${PROJECT_ROOT}/dist/`);
    writeFileSync(profile, config);
    const askEnv = { ...env, OLLAMA_HOST: url };
    const rows: { wall: number; perception: number; decision: number; sandbox: number; startup: number }[] = [];
    for (let i = 0; i <= RUNS; i++) {
      const run = await runCli(['--profile', profile, '--json', 'ask', 'What is 2 + 3?'], askEnv);
      const result = JSON.parse(run.stdout) as { status: string; session_id: string; timings: { total_ms: number; sandbox_ms: number } };
      if (result.status !== 'answered') throw new Error(`bench ask did not answer: ${run.stdout.slice(0, 300)}`);
      const trace = readFileSync(findTrace(join(root, 'memory'), result.session_id), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
      const llm = (stage: string) => trace.filter((e) => e.type === 'llm_call' && e.stage === stage).reduce((s, e) => s + e.latency_ms, 0);
      if (i > 0) rows.push({ wall: run.ms, perception: llm('perception'), decision: llm('decision'), sandbox: result.timings.sandbox_ms, startup: run.ms - result.timings.total_ms });
    }
    const m = (key: keyof (typeof rows)[number]) => round(median(rows.map((r) => r[key])));
    figures.push({ bench: 'cold-start', name: 'one-step ask, instant LLM: wall', value: m('wall'), unit: 'ms', runs: RUNS, target: '≤ 1500 ms', ok: m('wall') <= 1500 });
    figures.push({ bench: 'cold-start', name: 'one-step ask: start-up + shutdown (wall − run)', value: m('startup'), unit: 'ms', runs: RUNS });
    figures.push({ bench: 'cold-start', name: 'one-step ask: perception', value: m('perception'), unit: 'ms', runs: RUNS });
    figures.push({ bench: 'cold-start', name: 'one-step ask: decision', value: m('decision'), unit: 'ms', runs: RUNS });
    figures.push({ bench: 'cold-start', name: 'one-step ask: sandbox', value: m('sandbox'), unit: 'ms', runs: RUNS });
  } finally {
    server.close();
  }
  return figures;
}

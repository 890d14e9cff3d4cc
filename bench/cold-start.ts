// Benchmark: start of the CLI — `cortex servers list` and a one-step `cortex ask` (instant local LLM), with a cold and a
// warm MCP tool cache, with our three servers and with the three reference servers added, and beside a slow server.
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config/load-config.js';
import { PROJECT_ROOT } from '../src/paths.js';
import { benchEnv, runCli, runNode, startInstantLlm } from './instant-llm.js';
import { median, round, type Figure } from './stats.js';

const RUNS = 5;
/** The slow server never finishes starting within a question; its limit is far above a question's length. */
const SLOW_SERVER_TIMEOUT_S = 120;
const reference = (name: string) => join(PROJECT_ROOT, 'node_modules', '@modelcontextprotocol', `server-${name}`, 'dist', 'index.js');
/** How long the slow fake model takes per request. */
const SLOW_MODEL_MS = 1000;
/** A CLI run in the benchmark is abandoned past this. */
const CLI_TIMEOUT_MS = 60_000;

const PLAN = '```js\nasync function solve() { return "FINAL_ANSWER: " + await tools.add({ a: 2, b: 3 }); }\n```';

function findTrace(dir: string, sessionId: string): string {
  const entry = readdirSync(dir, { recursive: true, withFileTypes: true }).find((e) => e.name === `session-${sessionId}.trace.jsonl`);
  if (!entry) throw new Error(`no trace for ${sessionId}`);
  return join(entry.parentPath, entry.name);
}

/** A Claude Desktop-shaped file with the three reference servers, run from node_modules (no network). */
function referenceConfig(root: string): string {
  const file = join(root, 'claude_desktop_config.json');
  const node = (name: string, args: string[] = [], env: Record<string, string> = {}) => ({ command: 'node', args: [reference(name), ...args], env });
  writeFileSync(
    file,
    JSON.stringify({
      mcpServers: {
        filesystem: node('filesystem', [root]),
        memory: node('memory', [], { MEMORY_FILE_PATH: join(root, 'memory.jsonl') }),
        'sequential-thinking': node('sequential-thinking'),
      },
    }),
  );
  return file;
}

/** One more server from the bad-server fixture: `silent` never answers initialize; `tasks` answers at once (the control). */
function extraServerConfig(root: string, mode: 'silent' | 'tasks'): string {
  const file = join(root, `${mode}.json`);
  const fixture = join(PROJECT_ROOT, 'tests', 'fixtures', 'bad-server.mjs');
  writeFileSync(file, JSON.stringify({ mcpServers: { extra: { command: 'node', args: [fixture, mode], timeout: SLOW_SERVER_TIMEOUT_S } } }));
  return file;
}

export async function runColdStartBench(): Promise<Figure[]> {
  const figures: Figure[] = [];
  const env = benchEnv();
  const root = mkdtempSync(join(tmpdir(), 'cortex-bench-'));
  const profile = join(root, 'profiles.yaml');
  const config = readFileSync(join(PROJECT_ROOT, 'config', 'profiles.yaml'), 'utf8')
    .replace(/^( {2}memory:) memory$/m, `$1 ${join(root, 'memory')}`)
    .replace(/script: dist\//g, `script: ${PROJECT_ROOT}/dist/`);
  writeFileSync(profile, config);
  const ours = loadConfig({ profilePath: profile }).servers.length;
  const withReference = ['--mcp-config', referenceConfig(root)];
  const clearCache = () => rmSync(join(root, 'cache'), { recursive: true, force: true });

  const list = async (extra: string[], cold: boolean): Promise<number> => {
    const times: number[] = [];
    await runCli(['--profile', profile, ...extra, 'servers', 'list'], env, CLI_TIMEOUT_MS);
    for (let i = 0; i < RUNS; i++) {
      if (cold) clearCache();
      times.push((await runCli(['--profile', profile, ...extra, 'servers', 'list'], env, CLI_TIMEOUT_MS)).ms);
    }
    return round(median(times));
  };
  for (const [label, extra] of [[`${ours} servers`, []], [`${ours} + 3 reference servers`, withReference]] as const) {
    for (const cold of [true, false]) {
      const value = await list([...extra], cold);
      const isTarget = extra.length === 0 && !cold;
      figures.push({ bench: 'cold-start', name: `cortex servers list, ${label}, ${cold ? 'cold' : 'warm'} tool cache`, value, unit: 'ms', runs: RUNS, ...(isTarget ? { target: '≤ 1000 ms', ok: value <= 1000 } : {}) });
    }
  }

  const { server, url } = await startInstantLlm(() => PLAN);
  try {
    const askEnv = { ...env, OLLAMA_HOST: url };
    type Row = { wall: number; run: number; perception: number; decision: number; sandbox: number; startup: number };
    const asks = async (extra: string[], cold: boolean): Promise<Row[]> => {
      const rows: Row[] = [];
      for (let i = 0; i <= RUNS; i++) {
        if (cold) clearCache();
        const run = await runCli(['--profile', profile, ...extra, '--json', 'ask', 'What is 2 + 3?'], askEnv, CLI_TIMEOUT_MS);
        const result = JSON.parse(run.stdout) as { status: string; session_id: string; timings: { total_ms: number; sandbox_ms: number } };
        if (result.status !== 'answered') throw new Error(`bench ask did not answer: ${run.stdout.slice(0, 300)}`);
        const trace = readFileSync(findTrace(join(root, 'memory'), result.session_id), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
        const llm = (stage: string) => trace.filter((e) => e.type === 'llm_call' && e.stage === stage).reduce((s, e) => s + e.latency_ms, 0);
        if (i > 0) rows.push({ wall: run.ms, run: result.timings.total_ms, perception: llm('perception'), decision: llm('decision'), sandbox: result.timings.sandbox_ms, startup: run.ms - result.timings.total_ms });
      }
      return rows;
    };
    const m = (rows: Row[], key: keyof Row) => round(median(rows.map((r) => r[key])));

    const warm = await asks([], false);
    figures.push({ bench: 'cold-start', name: `one-step ask, instant LLM, ${ours} servers, warm: wall`, value: m(warm, 'wall'), unit: 'ms', runs: RUNS, target: '≤ 1500 ms', ok: m(warm, 'wall') <= 1500 });
    figures.push({ bench: 'cold-start', name: 'one-step ask: start-up + shutdown (wall − run)', value: m(warm, 'startup'), unit: 'ms', runs: RUNS });
    figures.push({ bench: 'cold-start', name: 'one-step ask: perception', value: m(warm, 'perception'), unit: 'ms', runs: RUNS });
    figures.push({ bench: 'cold-start', name: 'one-step ask: decision', value: m(warm, 'decision'), unit: 'ms', runs: RUNS });
    figures.push({ bench: 'cold-start', name: 'one-step ask: sandbox', value: m(warm, 'sandbox'), unit: 'ms', runs: RUNS });
    const cold = await asks([], true);
    figures.push({ bench: 'cold-start', name: `one-step ask, ${ours} servers, cold tool cache: wall`, value: m(cold, 'wall'), unit: 'ms', runs: RUNS });
    for (const [label, isCold] of [['cold', true], ['warm', false]] as const) {
      const rows = await asks(withReference, isCold);
      figures.push({ bench: 'cold-start', name: `one-step ask, ${ours} + 3 reference servers, ${label} tool cache: wall`, value: m(rows, 'wall'), unit: 'ms', runs: RUNS });
    }
    // Beside one more server that never starts, against a control with one more server that starts at once: the same
    // extra process either way, so the difference of the runs (perception to answer) is time spent waiting for it.
    const slow = await asks(['--mcp-config', extraServerConfig(root, 'silent')], false);
    const control = await asks(['--mcp-config', extraServerConfig(root, 'tasks')], false);
    const waited = round(m(slow, 'run') - m(control, 'run'));
    figures.push({ bench: 'cold-start', name: `one-step ask beside a server that never starts (limit ${SLOW_SERVER_TIMEOUT_S} s): wall`, value: m(slow, 'wall'), unit: 'ms', runs: RUNS });
    figures.push({ bench: 'cold-start', name: 'one-step ask beside it: the run (perception to answer)', value: m(slow, 'run'), unit: 'ms', runs: RUNS });
    figures.push({ bench: 'cold-start', name: 'one-step ask beside a server that starts at once: the run', value: m(control, 'run'), unit: 'ms', runs: RUNS });
    figures.push({ bench: 'cold-start', name: 'time an ask waits for a slow server it does not use (run − control run)', value: waited, unit: 'ms', runs: RUNS, target: '≈ 0 (≤ 300 ms)', ok: waited <= 300 });
  } finally {
    server.close();
  }
  // What a question costs beyond the model's own time, against `node -e 0` run in turn with it: an instant model, and one
  // that takes SLOW_MODEL_MS per request (perception, then the plan), streamed as a model streams.
  for (const delayMs of [0, SLOW_MODEL_MS]) {
    const model = await startInstantLlm(() => PLAN, { delayMs });
    let modelMs = 0;
    model.server.prependListener('request', (req, res) => {
      const started = performance.now();
      res.on('finish', () => {
        if (req.url === '/api/chat') modelMs += performance.now() - started;
      });
    });
    try {
      const beyond: number[] = [];
      const ratios: number[] = [];
      for (let i = 0; i <= RUNS; i++) {
        modelMs = 0;
        const run = await runCli(['--profile', profile, '-q', 'ask', 'What is 2 + 3?'], { ...env, OLLAMA_HOST: model.url }, CLI_TIMEOUT_MS);
        const spent = modelMs;
        const bare = await runNode(['-e', '0'], env);
        if (i === 0) continue;
        beyond.push(run.ms - spent - bare);
        ratios.push(run.ms / bare);
      }
      const label = delayMs ? `LLM taking ${delayMs} ms per request` : 'instant LLM';
      figures.push({ bench: 'cold-start', name: `one-step ask, ${label}: wall − the model's time − \`node -e 0\``, value: round(median(beyond)), unit: 'ms', runs: RUNS, target: '≤ 400 ms', ok: median(beyond) <= 400 });
      figures.push({ bench: 'cold-start', name: `one-step ask, ${label}: wall ÷ \`node -e 0\``, value: round(median(ratios), 1), unit: '×', runs: RUNS });
    } finally {
      model.server.close();
    }
  }
  return figures;
}

// Benchmark: `cortex serve` under 20 concurrent two-step questions (instant LLM), and one question over HTTP vs `cortex ask`.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../src/paths.js';
import { benchEnv, pathsYaml, runCli, startInstantLlm } from './instant-llm.js';
import { median, round, type Figure } from './stats.js';

/** Questions sent at once. */
export const CONCURRENT = 20;
/** Single questions timed each way for the overhead figure. */
const RUNS = 5;
/** Any one process or request of the benchmark is abandoned past this. */
const TIMEOUT_MS = 120_000;

/** The two plans of the question every serve bench asks; the second follows once the first's result is in the prompt. */
const FIRST = 'async function solve() { const c = await tools.strings_to_chars_to_int({ string: "AB" }); return "FURTHER_PROCESSING_REQUIRED: " + JSON.stringify(c); }';
const SECOND = 'async function solve() { return "FINAL_ANSWER: " + await tools.add({ a: 65, b: 66 }); }';

/** The instant LLM's plan for a decision prompt of that question. */
export const planFor = (prompt: string) => `\`\`\`js\n${prompt.includes('[65,66]') ? SECOND : FIRST}\n\`\`\``;

/** A profile for `cortex serve` of the built checkout `checkout`, keeping its files under `root`; returns its path. */
export function writeServeProfile(root: string, checkout: string): string {
  const profile = join(root, 'profiles.yaml');
  writeFileSync(
    profile,
    `serve:\n  max_concurrent: ${CONCURRENT}\n  sandbox_workers: 2\n` +
      pathsYaml(root) +
      `mcp_servers:\n  - id: math\n    script: ${join(checkout, 'dist', 'bundle', 'math.js')}\n    description: Arithmetic and ASCII codes\n`,
  );
  return profile;
}

/** Starts `cortex serve` of the built checkout `checkout` on a free port; resolves once it says where it serves. */
export function startServe(profile: string, env: NodeJS.ProcessEnv, checkout = PROJECT_ROOT): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [join(checkout, 'bin', 'cortex.js'), '--profile', profile, '--quiet', 'serve', '--port', '0'], { env, stdio: ['ignore', 'pipe', 'ignore'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const match = /serving on (http:\/\/\S+?)\/? /.exec(out);
      if (match) resolve({ child, url: match[1]! });
    });
    child.on('close', (code) => reject(new Error(`cortex serve exited with ${code}: ${out}`)));
  });
}

/** One question over HTTP as JSON: its wall time, its status, and the run's own total_ms. */
export async function askHttp(url: string): Promise<{ ms: number; status: string; totalMs: number }> {
  const started = performance.now();
  const response = await fetch(`${url}/v1/ask`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ question: 'Add the ASCII codes of AB' }),
    signal: AbortSignal.timeout(TIMEOUT_MS),
  });
  const json = (await response.json()) as { status?: string; timings?: { total_ms: number } };
  return { ms: performance.now() - started, status: json.status ?? `HTTP ${response.status}`, totalMs: json.timings?.total_ms ?? 0 };
}

async function askCli(profile: string, env: NodeJS.ProcessEnv): Promise<number> {
  const { ms, stdout } = await runCli(['--profile', profile, '--json', 'ask', 'Add the ASCII codes of AB'], env, TIMEOUT_MS);
  if ((JSON.parse(stdout || '{}') as { status?: string }).status !== 'answered') throw new Error(`cortex ask did not answer: ${stdout.slice(0, 300)}`);
  return ms;
}

/** Resident set of a process in MB, now (VmRSS) and at its peak (VmHWM), from /proc. */
function rssMb(pid: number): { now: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
  return { now: round(kb('VmRSS') / 1024, 1), peak: round(kb('VmHWM') / 1024, 1) };
}

/** The `p`th percentile of a non-empty list (nearest rank). */
export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

export async function runServeBench(): Promise<Figure[]> {
  const { server: llm, url: llmUrl } = await startInstantLlm(planFor);
  const profile = writeServeProfile(mkdtempSync(join(tmpdir(), 'cortex-bench-serve-')), PROJECT_ROOT);
  const env: NodeJS.ProcessEnv = { ...benchEnv(), OLLAMA_HOST: llmUrl };
  const { child, url } = await startServe(profile, env);
  const figures: Figure[] = [];
  try {
    await askHttp(url);
    const idle = rssMb(child.pid!);
    const burstStarted = performance.now();
    const burst = await Promise.all(Array.from({ length: CONCURRENT }, () => askHttp(url)));
    const burstMs = performance.now() - burstStarted;
    const answered = burst.filter((r) => r.status === 'answered').length;
    const latencies = burst.map((r) => r.ms);
    const after = rssMb(child.pid!);
    figures.push({ bench: 'serve', name: `${CONCURRENT} concurrent two-step questions: answered`, value: answered, unit: `of ${CONCURRENT}`, target: `= ${CONCURRENT}`, ok: answered === CONCURRENT });
    figures.push({ bench: 'serve', name: `${CONCURRENT} concurrent: latency p50`, value: round(percentile(latencies, 50)), unit: 'ms', note: '2 sandbox workers' });
    figures.push({ bench: 'serve', name: `${CONCURRENT} concurrent: latency p95`, value: round(percentile(latencies, 95)), unit: 'ms' });
    figures.push({ bench: 'serve', name: `${CONCURRENT} concurrent: all answered after`, value: round(burstMs), unit: 'ms' });
    figures.push({ bench: 'serve', name: 'server process RSS, idle (after one question)', value: idle.now, unit: 'MB' });
    figures.push({ bench: 'serve', name: `server process RSS, peak through the ${CONCURRENT} questions`, value: after.peak, unit: 'MB' });

    const http: Array<{ ms: number; totalMs: number }> = [];
    for (let i = 0; i < RUNS; i++) http.push(await askHttp(url));
    const cli: number[] = [];
    await askCli(profile, env);
    for (let i = 0; i < RUNS; i++) cli.push(await askCli(profile, env));
    const httpMs = median(http.map((r) => r.ms));
    figures.push({ bench: 'serve', name: 'one two-step question over HTTP (server warm): wall', value: round(httpMs), unit: 'ms', runs: RUNS });
    figures.push({ bench: 'serve', name: 'one two-step question over HTTP: beyond the run itself (wall − total_ms)', value: round(median(http.map((r) => r.ms - r.totalMs))), unit: 'ms', runs: RUNS });
    figures.push({ bench: 'serve', name: 'the same question with `cortex ask --json` (new process): wall', value: round(median(cli)), unit: 'ms', runs: RUNS });
  } finally {
    child.kill('SIGTERM');
    llm.close();
  }
  return figures;
}

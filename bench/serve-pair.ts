// Benchmark: this build's `cortex serve` against another built checkout's, questions alternated between the two in one run.
import { execFileSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { PROJECT_ROOT } from '../src/paths.js';
import { benchEnv, startInstantLlm } from './instant-llm.js';
import { askHttp, CONCURRENT, percentile, planFor, startServe, writeServeProfile } from './serve.js';
import { median, round, type Figure } from './stats.js';

/** Warm single questions each way, alternated one by one (about 25 s in all on the shared 2-core machine). */
const WARM_PAIRS = 400;
/** Warm pairs whose CPU is summed into one ratio: /proc counts CPU in 10 ms ticks and a question takes about 20 ms. */
const CPU_BLOCK_PAIRS = 20;
/** Bursts of CONCURRENT questions each way, alternated burst by burst (about 0.25 s a burst, 40 s in all). */
const BURST_PAIRS = 80;
/** Untimed questions each server answers first, then one untimed burst: workers started, code compiled. */
const WARM_UP_QUESTIONS = 5;
/** Kernel clock ticks a second in /proc/PID/stat (USER_HZ, 100 on Linux's mainstream architectures). */
const CLOCK_TICKS_PER_S = 100;

/** One of the two servers being compared. */
interface Side {
  child: ChildProcess;
  url: string;
  pid: number;
}

/** What one side's question or burst measured. */
interface Sample {
  ms: number;
  p50: number;
  p95: number;
  /** CPU of the `cortex serve` process per question, ms. */
  cpuMs: number;
  /** CPU of it and its child processes (sandbox workers, the MCP server) per question, ms. */
  treeCpuMs: number;
  answered: number;
  questions: number;
}

/** utime + stime of a process, and of its children it has reaped, in ms, from /proc/PID/stat. */
function processCpuMs(pid: number): { own: number; reaped: number } {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return { own: 0, reaped: 0 }; // it has exited since it was listed
  }
  // Fields after the command name (which may hold spaces): state is field 3, utime 14, stime 15, cutime 16, cstime 17.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ').map(Number);
  const tickMs = 1000 / CLOCK_TICKS_PER_S;
  return { own: (fields[11]! + fields[12]!) * tickMs, reaped: (fields[13]! + fields[14]!) * tickMs };
}

/** The live child processes of `pid`, from each of its threads' /proc children list. */
function childPids(pid: number): number[] {
  const pids: number[] = [];
  try {
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      const text = readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim();
      if (text) pids.push(...text.split(' ').map(Number));
    }
  } catch {
    // It has exited since it was listed: no children to count.
  }
  return pids;
}

/** CPU of the process and of the whole tree below it (live descendants and reaped children), ms. */
function cpuNow(pid: number): { own: number; tree: number } {
  const self = processCpuMs(pid);
  let tree = self.own + self.reaped;
  for (const child of childPids(pid)) tree += cpuNow(child).tree;
  return { own: self.own, tree };
}

/** Asks `questions` questions at once (one when 1) and times them; the CPU is filled in by measurePair. */
async function measure(side: Side, questions: number): Promise<Sample> {
  const started = performance.now();
  const answers = await Promise.all(Array.from({ length: questions }, () => askHttp(side.url)));
  const ms = performance.now() - started;
  const latencies = answers.map((a) => a.ms);
  return { ms, p50: percentile(latencies, 50), p95: percentile(latencies, 95), cpuMs: 0, treeCpuMs: 0, answered: answers.filter((a) => a.status === 'answered').length, questions };
}

/**
 * Measures both sides, this build first in even pairs and the other first in odd ones, so neither always leads.
 * Each side's CPU is read across the whole pair, so work a server does after replying is counted too.
 */
async function measurePair(index: number, mine: Side, theirs: Side, questions: number): Promise<[Sample, Sample]> {
  const before = [cpuNow(mine.pid), cpuNow(theirs.pid)] as const;
  let samples: [Sample, Sample];
  if (index % 2 === 0) {
    const a = await measure(mine, questions);
    samples = [a, await measure(theirs, questions)];
  } else {
    const b = await measure(theirs, questions);
    samples = [await measure(mine, questions), b];
  }
  const after = [cpuNow(mine.pid), cpuNow(theirs.pid)] as const;
  samples.forEach((sample, i) => {
    sample.cpuMs = (after[i]!.own - before[i]!.own) / questions;
    sample.treeCpuMs = (after[i]!.tree - before[i]!.tree) / questions;
  });
  return samples;
}

/** The checkout's short commit, or its folder name when it is not a git checkout. */
function describeCheckout(dir: string): string {
  try {
    return execFileSync('git', ['-C', dir, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return basename(dir);
  }
}

/** Sums each `size` consecutive pairs' values, so a CPU ratio compares more than a few clock ticks. */
function blockSums(pairs: Array<[Sample, Sample]>, size: number, key: keyof Sample): Array<[number, number]> {
  const blocks: Array<[number, number]> = [];
  for (let start = 0; start + size <= pairs.length; start += size) {
    const block = pairs.slice(start, start + size);
    blocks.push([block.reduce((s, [a]) => s + a[key], 0), block.reduce((s, [, b]) => s + b[key], 0)]);
  }
  return blocks;
}

/**
 * Serves the same profile shape, instant LLM and environment from this build and from the built checkout `against`,
 * and compares them question by question and burst by burst; each ratio is this ÷ against, the median of the
 * per-pair ratios.
 * @throws Error when `against` is not a built checkout of Cortex-R, or a server does not start.
 */
export async function runServePairBench(against: string): Promise<Figure[]> {
  const other = resolve(against);
  if (!existsSync(join(other, 'bin', 'cortex.js')) || !existsSync(join(other, 'dist', 'bundle', 'math.js'))) {
    throw new Error(`${other} is not a built checkout of Cortex-R (run \`npm run build\` there first)`);
  }
  const label = describeCheckout(other);
  const { server: llm, url: llmUrl } = await startInstantLlm(planFor);
  const env: NodeJS.ProcessEnv = { ...benchEnv(), OLLAMA_HOST: llmUrl };
  const sides: Side[] = [];
  try {
    for (const checkout of [PROJECT_ROOT, other]) {
      const profile = writeServeProfile(mkdtempSync(join(tmpdir(), 'cortex-bench-serve-pair-')), checkout);
      const { child, url } = await startServe(profile, env, checkout);
      sides.push({ child, url, pid: child.pid! });
    }
    const [mine, theirs] = sides as [Side, Side];
    for (const side of sides) {
      for (let i = 0; i < WARM_UP_QUESTIONS; i++) await askHttp(side.url);
      await measure(side, CONCURRENT);
    }
    const warm: Array<[Sample, Sample]> = [];
    for (let i = 0; i < WARM_PAIRS; i++) warm.push(await measurePair(i, mine, theirs, 1));
    const bursts: Array<[Sample, Sample]> = [];
    for (let i = 0; i < BURST_PAIRS; i++) bursts.push(await measurePair(i, mine, theirs, CONCURRENT));
    return pairFigures(label, warm, bursts);
  } finally {
    for (const side of sides) side.child.kill('SIGTERM');
    llm.close();
  }
}

/** One figure per compared measure: the median per-pair ratio, with both sides' medians in the note. */
function pairFigures(label: string, warm: Array<[Sample, Sample]>, bursts: Array<[Sample, Sample]>): Figure[] {
  const figure = (what: string, pairs: Array<[number, number]>, unit: string): Figure => ({
    bench: 'serve',
    name: `paired with ${label}: ${what}, this ÷ ${label}`,
    value: round(median(pairs.map(([a, b]) => a / b)), 3),
    unit: '×',
    runs: pairs.length,
    note: `medians: this ${round(median(pairs.map(([a]) => a)), 1)} ${unit}, ${label} ${round(median(pairs.map(([, b]) => b)), 1)} ${unit}`,
  });
  const of = (pairs: Array<[Sample, Sample]>, key: keyof Sample) => pairs.map(([a, b]): [number, number] => [a[key], b[key]]);
  const perQuestion = (blocks: Array<[number, number]>) => blocks.map(([a, b]): [number, number] => [a / CPU_BLOCK_PAIRS, b / CPU_BLOCK_PAIRS]);
  const all = [...warm, ...bursts];
  const unanswered = all.reduce((n, [a, b]) => n + a.questions - a.answered + b.questions - b.answered, 0);
  return [
    { bench: 'serve', name: `paired with ${label}: questions not answered (either build)`, value: unanswered, unit: `of ${all.reduce((n, [a, b]) => n + a.questions + b.questions, 0)}`, target: '= 0', ok: unanswered === 0 },
    figure('one warm question, wall', of(warm, 'ms'), 'ms'),
    figure(`one warm question, server process CPU (blocks of ${CPU_BLOCK_PAIRS} pairs)`, perQuestion(blockSums(warm, CPU_BLOCK_PAIRS, 'cpuMs')), 'ms'),
    figure(`one warm question, server + its workers and MCP server CPU (blocks of ${CPU_BLOCK_PAIRS} pairs)`, perQuestion(blockSums(warm, CPU_BLOCK_PAIRS, 'treeCpuMs')), 'ms'),
    figure(`${CONCURRENT} concurrent, latency p50`, of(bursts, 'p50'), 'ms'),
    figure(`${CONCURRENT} concurrent, latency p95`, of(bursts, 'p95'), 'ms'),
    figure(`${CONCURRENT} concurrent, server process CPU per question`, of(bursts, 'cpuMs'), 'ms'),
    figure(`${CONCURRENT} concurrent, server + its workers and MCP server CPU per question`, of(bursts, 'treeCpuMs'), 'ms'),
  ];
}

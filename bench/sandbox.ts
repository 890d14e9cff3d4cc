// Benchmark: sandbox isolate start, per-tool-call overhead vs a fresh server per call (the original), host RSS over runs.
import { pathToFileURL } from 'node:url';
import { loadConfig } from '../src/config/load-config.js';
import { MultiMcp } from '../src/mcp/multi-mcp.js';
import { createSandbox } from '../src/sandbox/create-sandbox.js';
import { median, round, withTarget, type Figure } from './stats.js';

const BENCH = 'sandbox';
/** Trivial runs timed for the isolate start figure, after WARMUP_RUNS untimed ones. */
const START_RUNS = 25;
const WARMUP_RUNS = 3;
/** Tool calls made by the one solve() that measures proxy overhead. */
const PROXY_CALLS = 200;
/** Timed runs of that solve(), after one untimed warm-up. */
const PROXY_LOOPS = 5;
/** Calls made the original way, each with its own freshly started math server. */
const FRESH_SERVER_CALLS = 5;
/** Runs after which the host's resident memory is read again. */
const RSS_RUNS = 500;
/** Generous for 200 sequential calls on a slow machine; the benchmark fails loudly rather than hang. */
const PROXY_RUN_TIMEOUT_MS = 120_000;

const TRIVIAL = 'async function solve() { return 1; }';
const ADD_LOOP = `async function solve() {
  let total = 0;
  for (let i = 0; i < ${PROXY_CALLS}; i++) total = await tools.add({ a: total, b: 1 });
  return total;
}`;

/** The math server as the shipped profile configures it, over one persistent MCP session. */
async function connectMath(): Promise<MultiMcp> {
  const multi = await MultiMcp.start(loadConfig().servers.filter((s) => s.id === 'math'));
  if (multi.statuses()[0]?.state !== 'ready') throw new Error('the math server did not start; run `npm run build` first');
  return multi;
}

const rssMb = () => round(process.memoryUsage.rss() / 2 ** 20, 1);

/** Runs the sandbox benchmark and returns its figures (also printed as JSON lines when run directly). */
export async function runSandboxBench(): Promise<Figure[]> {
  const figures: Figure[] = [];
  const math = await connectMath();
  const sandbox = createSandbox();
  const run = async (code: string, maxToolCalls = 5) => {
    const result = await sandbox.run({ code, tools: math.listTools(), caller: math, limits: { maxToolCalls, timeoutMs: PROXY_RUN_TIMEOUT_MS } });
    if (!result.ok) throw new Error(`benchmark run failed: ${result.error.kind}: ${result.error.message}`);
    return result;
  };
  try {
    const coldStarted = performance.now();
    await run(TRIVIAL);
    figures.push({ bench: BENCH, name: 'first run incl. worker process start', value: round(performance.now() - coldStarted), unit: 'ms', runs: 1 });
    const rssAfterOne = rssMb();
    figures.push({ bench: BENCH, name: 'host RSS after 1 run', value: rssAfterOne, unit: 'MB', runs: 1 });

    for (let i = 0; i < WARMUP_RUNS; i++) await run(TRIVIAL);
    const starts: number[] = [];
    for (let i = 0; i < START_RUNS; i++) {
      const started = performance.now();
      await run(TRIVIAL);
      starts.push(performance.now() - started);
    }
    const trivialMs = median(starts);
    figures.push(withTarget({ bench: BENCH, name: 'isolate start + trivial solve() (median)', value: round(trivialMs), unit: 'ms', runs: START_RUNS }, { max: 5 }));

    // Both sides are measured the same way: mean time per call over a loop of PROXY_CALLS sequential calls,
    // median over PROXY_LOOPS loops, interleaved so machine noise hits both alike.
    const directLoop = async () => {
      const started = performance.now();
      for (let i = 0; i < PROXY_CALLS; i++) await math.callTool('math', 'add', { a: i, b: 1 });
      return (performance.now() - started) / PROXY_CALLS;
    };
    await directLoop();
    await run(ADD_LOOP, PROXY_CALLS);
    const directLoops: number[] = [];
    const loops: number[] = [];
    for (let i = 0; i < PROXY_LOOPS; i++) {
      directLoops.push(await directLoop());
      loops.push(((await run(ADD_LOOP, PROXY_CALLS)).ms - trivialMs) / PROXY_CALLS);
    }
    const directMs = median(directLoops);
    figures.push({ bench: BENCH, name: `direct MCP call over stdio, no sandbox (${PROXY_CALLS} sequential calls, median of ${PROXY_LOOPS})`, value: round(directMs, 3), unit: 'ms/call', runs: PROXY_CALLS * PROXY_LOOPS });
    const perCallMs = median(loops);
    figures.push({
      bench: BENCH,
      name: `tool call through the sandbox proxy (${PROXY_CALLS} sequential calls in one solve, median of ${PROXY_LOOPS})`,
      value: round(perCallMs, 3),
      unit: 'ms/call',
      runs: PROXY_CALLS * PROXY_LOOPS,
    });
    figures.push(withTarget({ bench: BENCH, name: 'proxy overhead per call (sandbox call − direct call)', value: round(perCallMs - directMs, 3), unit: 'ms/call', runs: PROXY_CALLS }, { max: 0.5 }));

    const fresh: number[] = [];
    for (let i = 0; i < FRESH_SERVER_CALLS; i++) {
      const started = performance.now();
      const once = await connectMath();
      await once.callTool('math', 'add', { a: i, b: 1 });
      await once.close();
      fresh.push(performance.now() - started);
    }
    const freshMs = median(fresh);
    figures.push({ bench: BENCH, name: 'reference: fresh math server per call, the original way (median)', value: round(freshMs), unit: 'ms/call', runs: FRESH_SERVER_CALLS });
    figures.push(withTarget({ bench: BENCH, name: 'speed-up of a proxied call over a fresh server per call', value: round(freshMs / perCallMs, 1), unit: '×' }, { min: 200 }));

    const done = 1 + WARMUP_RUNS + START_RUNS + 1 + PROXY_LOOPS;
    for (let i = done; i < RSS_RUNS; i++) await run(TRIVIAL);
    const rssAfter = rssMb();
    figures.push({ bench: BENCH, name: `host RSS after ${RSS_RUNS} runs`, value: rssAfter, unit: 'MB', runs: RSS_RUNS });
    figures.push(withTarget({ bench: BENCH, name: `host RSS growth from 1 to ${RSS_RUNS} runs`, value: round(rssAfter - rssAfterOne), unit: 'MB' }, { max: 20 }));
  } finally {
    await sandbox.close();
    await math.close();
  }
  return figures;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const figure of await runSandboxBench()) console.log(JSON.stringify(figure));
}

// Benchmark: a plan that fires 5,000 tool calls at once (cap 20) through the built CLI, then an ordinary question.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../src/paths.js';
import { benchEnv, pathsYaml, runCli, startInstantLlm } from './instant-llm.js';
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

export async function runCallFloodBench(): Promise<Figure[]> {
  const env = benchEnv();
  const { server, url } = await startInstantLlm(() => nextPlan);
  try {
    const root = mkdtempSync(join(tmpdir(), 'cortex-bench-'));
    const profile = join(root, 'profiles.yaml');
    writeFileSync(
      profile,
      'strategy:\n  max_steps: 1\n  max_lifelines_per_step: 1\nsandbox:\n  max_tool_calls_per_plan: 20\n' +
        pathsYaml(root) +
        `mcp_servers:\n  - id: math\n    script: ${join(PROJECT_ROOT, 'dist', 'mcp-servers', 'math', 'main.js')}\n    description: Arithmetic\n`,
    );
    const askEnv = { ...env, OLLAMA_HOST: url };
    const flood: number[] = [];
    const next: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      nextPlan = FLOOD_PLAN;
      const a = await runCli(['--profile', profile, '--json', 'ask', `flood the math server ${i}`], askEnv, CLI_TIMEOUT_MS);
      if (a.code === null) throw new Error('the flood run was killed at the benchmark timeout');
      flood.push(a.ms);
      const session = (JSON.parse(a.stdout) as { session_id: string }).session_id;
      nextPlan = PLAIN_PLAN;
      const b = await runCli(['--profile', profile, '--json', '--session', session, 'ask', 'What is 2 + 3?'], askEnv, CLI_TIMEOUT_MS);
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

// The external reply corpus (tests/fixtures/replies-external): replies adapted from other projects, run through the real reader and sandbox.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { CORPUS_LIMITS, CORPUS_TASKS, CORPUS_TOOLS, corpusCaller } from '../../bench/reply-corpus.js';
import { classifyResult, type PlanOutcome } from '../../src/agent/outcome.js';
import { PROJECT_ROOT } from '../../src/paths.js';
import type { Sandbox } from '../../src/sandbox/types.js';
import { runReply } from '../helpers/run-reply.js';

export const EXTERNAL_CORPUS_DIR = join(PROJECT_ROOT, 'tests/fixtures/replies-external');

/** One entry of expected.yaml, written before the reader ran on it. */
export interface ExternalCase {
  file: string;
  reply: string;
  task: string;
  expect: 'answer' | 'result' | 'refused';
  /** For refused: the kind of problem the diagnosis must name. */
  problem?: string;
  /** Overrides the task's right answer. */
  answer?: string;
  /** Tool calls the run must make; another count is a repeated (or missing) side effect. */
  calls?: number;
  source: string;
  /** Written after the reader was changed, run once as written: replies the reader was not tuned to. */
  held_out?: boolean;
}

export function loadExternalCorpus(dir = EXTERNAL_CORPUS_DIR): ExternalCase[] {
  const entries = parseYaml(readFileSync(join(dir, 'expected.yaml'), 'utf8')) as Array<Omit<ExternalCase, 'reply'>>;
  return entries.map((e) => ({ ...e, reply: readFileSync(join(dir, e.file), 'utf8') }));
}

/**
 * right: ran with the expected result (or was refused when refusal was expected);
 * silent_wrong: ran something other than the expected thing with nothing fed back (wrong value, a
 *   reply that should have been refused accepted, or the wrong number of tool calls);
 * feedback: refused although it should have run.
 */
export type Verdict = 'right' | 'silent_wrong' | 'feedback';

export interface ExternalResult {
  file: string;
  expect: ExternalCase['expect'];
  verdict: Verdict;
  outcome: PlanOutcome;
  calls: number;
}

export async function runExternalCase(sandbox: Sandbox, c: ExternalCase): Promise<ExternalResult> {
  const task = CORPUS_TASKS[c.task];
  if (!task) throw new Error(`${c.file}: unknown task ${c.task}`);
  const run = await runReply(sandbox, { code: c.reply, tools: CORPUS_TOOLS, caller: corpusCaller, limits: CORPUS_LIMITS });
  const outcome = classifyResult(run);
  const want = c.answer ?? task.answer;
  const callsOk = c.calls === undefined || run.calls.length === c.calls;
  let verdict: Verdict;
  if (outcome.kind === 'final_answer' || outcome.kind === 'further_processing') {
    const value = outcome.kind === 'final_answer' ? outcome.answer : outcome.result;
    const right = callsOk && value === want && (c.expect === 'answer' ? outcome.kind === 'final_answer' : c.expect === 'result' && outcome.kind === 'further_processing');
    verdict = right ? 'right' : 'silent_wrong';
  } else {
    verdict = c.expect === 'refused' ? 'right' : 'feedback';
  }
  return { file: c.file, expect: c.expect, verdict, outcome, calls: run.calls.length };
}

export function summariseExternal(results: ExternalResult[]): { total: number; shouldRun: number; firstTry: number; silentWrong: number; refusedRight: number } {
  const shouldRun = results.filter((r) => r.expect !== 'refused');
  return {
    total: results.length,
    shouldRun: shouldRun.length,
    firstTry: shouldRun.filter((r) => r.verdict === 'right').length,
    silentWrong: results.filter((r) => r.verdict === 'silent_wrong').length,
    refusedRight: results.filter((r) => r.expect === 'refused' && r.verdict === 'right').length,
  };
}

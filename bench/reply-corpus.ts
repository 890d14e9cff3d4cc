// The reply corpus (tests/fixtures/replies): runs every realistic model reply through the real sandbox and counts first-try and eventual answers.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { classifyResult, type PlanOutcome } from '../src/agent/outcome.js';
import { runPlan } from '../src/agent/attempt.js';
import { readReply } from '../src/reply/read-reply.js';
import type { ToolCaller, ToolInfo, ToolResult } from '../src/mcp/types.js';
import { PROJECT_ROOT } from '../src/paths.js';
import type { Sandbox, SandboxLimits } from '../src/sandbox/types.js';
import type { Figure } from './stats.js';

/** Where the replies and expected.yaml live. */
export const CORPUS_DIR = join(PROJECT_ROOT, 'tests/fixtures/replies');
/** The synthetic 1 MB reply's size, in characters: above the sandbox's code limit. */
const MEGABYTE_REPLY_CHARS = 1_048_576;
/** Limits for corpus runs: the tasks are a few in-process calls each. */
export const CORPUS_LIMITS: SandboxLimits = { maxToolCalls: 5, timeoutMs: 5_000, memoryMb: 64, maxOutputChars: 100_000 };

const INDIA_EXP_SUM = [73, 78, 68, 73, 65].reduce((s, c) => s + Math.exp(c), 0);
const EIFFEL_TEXT = 'The Eiffel Tower is 330 metres tall.';

/** Each task's right answer and a clean reply a model would send after reading the feedback. */
export const CORPUS_TASKS: Record<string, { answer: string; clean: string }> = {
  sum: { answer: '5', clean: 'async function solve() { return "FINAL_ANSWER: " + await tools.add({ a: 2, b: 3 }); }' },
  product: { answer: '42', clean: 'async function solve() { return "FINAL_ANSWER: " + await tools.multiply({ a: 6, b: 7 }); }' },
  pow: { answer: '1024', clean: 'async function solve() { return "FINAL_ANSWER: " + await tools.power({ a: 2, b: 10 }); }' },
  paris: { answer: 'Paris', clean: 'async function solve() { return "FINAL_ANSWER: Paris"; }' },
  eiffel: { answer: EIFFEL_TEXT, clean: 'async function solve() { return "FINAL_ANSWER: " + await tools.search_documents({ query: "Eiffel Tower height" }); }' },
  india: {
    answer: String(INDIA_EXP_SUM),
    clean:
      'async function solve() { const codes = await tools.strings_to_chars_to_int({ string: "INDIA" }); return "FINAL_ANSWER: " + await tools.int_list_to_exponential_sum({ numbers: codes }); }',
  },
};

const numberSchema = { type: 'object', properties: { result: { type: 'number' } }, required: ['result'] };
const pair = { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] };
const tool = (name: string, description: string, inputSchema: Record<string, unknown>, outputSchema?: Record<string, unknown>): ToolInfo => ({
  server: 'corpus',
  name,
  remoteName: name,
  description,
  inputSchema,
  ...(outputSchema ? { outputSchema } : {}),
});

/** The tools every corpus reply may call. */
export const CORPUS_TOOLS: ToolInfo[] = [
  tool('add', 'Add two numbers', pair, numberSchema),
  tool('multiply', 'Multiply two numbers', pair, numberSchema),
  tool('power', 'a to the power b', pair, numberSchema),
  tool('strings_to_chars_to_int', 'ASCII codes of the characters of a string', { type: 'object', properties: { string: { type: 'string' } }, required: ['string'] }, {
    type: 'object',
    properties: { result: { type: 'array', items: { type: 'integer' } } },
  }),
  tool('int_list_to_exponential_sum', 'Sum of e^x over a list', { type: 'object', properties: { numbers: { type: 'array', items: { type: 'number' } } }, required: ['numbers'] }, numberSchema),
  tool('search_documents', 'Search the stored documents', { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] }),
];

const structured = (result: unknown): ToolResult => ({ content: [{ type: 'text', text: JSON.stringify({ result }) }], structuredContent: { result } });

/** Answers the corpus tools in process, like the math and documents servers would. */
export const corpusCaller: ToolCaller = {
  async callTool(_server, name, args) {
    const a = Number(args.a);
    const b = Number(args.b);
    switch (name) {
      case 'add':
        return structured(a + b);
      case 'multiply':
        return structured(a * b);
      case 'power':
        return structured(a ** b);
      case 'strings_to_chars_to_int':
        return structured([...String(args.string)].map((c) => c.charCodeAt(0)));
      case 'int_list_to_exponential_sum':
        return structured((args.numbers as number[]).reduce((s, n) => s + Math.exp(n), 0));
      case 'search_documents':
        return { content: [{ type: 'text', text: EIFFEL_TEXT }] };
      default:
        return { content: [{ type: 'text', text: `unknown tool ${name}` }], isError: true };
    }
  },
};

/** One corpus entry from expected.yaml, with its reply text. */
export interface CorpusCase {
  name: string;
  reply: string;
  task: string;
  /** answer: FINAL_ANSWER right on the first try; result: the right result handed to the next step; feedback: refused. */
  expect: 'answer' | 'result' | 'feedback';
  /** For expect: feedback, text the feedback must contain. */
  feedback?: string;
  source: string;
}

/** Reads expected.yaml and the replies it names. */
export function loadCorpus(dir = CORPUS_DIR): CorpusCase[] {
  const entries = parseYaml(readFileSync(join(dir, 'expected.yaml'), 'utf8')) as Array<Record<string, string>>;
  return entries.map((e) => ({
    name: e.file ?? e.synthetic!,
    reply: e.file ? readFileSync(join(dir, e.file), 'utf8') : syntheticReply(e.synthetic!),
    task: e.task!,
    expect: e.expect as CorpusCase['expect'],
    ...(e.feedback !== undefined ? { feedback: String(e.feedback) } : {}),
    source: e.source ?? '',
  }));
}

function syntheticReply(name: string): string {
  if (name !== 'megabyte') throw new Error(`unknown synthetic reply ${name}`);
  const body = '```javascript\nasync function solve() {\n  const data = "';
  return `${body}${'x'.repeat(MEGABYTE_REPLY_CHARS)}";\n  return "FINAL_ANSWER: " + data.length;\n}\n\`\`\`\n`;
}

/** How the first attempt went: the right answer, a wrong one (or nonsense passed on), or feedback to the model. */
export type FirstTry = 'right' | 'wrong' | 'feedback';

export interface CaseResult {
  name: string;
  expect: CorpusCase['expect'];
  firstTry: FirstTry;
  /** The outcome of the first attempt. */
  outcome: PlanOutcome;
  /** Right on the first try, or fed back and right with the task's clean reply on the next lifeline. */
  eventual: boolean;
}

async function attempt(sandbox: Sandbox, reply: string): Promise<PlanOutcome> {
  return classifyResult(await runPlan(sandbox, readReply(reply), { tools: CORPUS_TOOLS, caller: corpusCaller, limits: CORPUS_LIMITS }));
}

/** Runs each reply, then (when it was fed back) the task's clean reply as the next lifeline. */
export async function runCorpus(sandbox: Sandbox, cases: CorpusCase[] = loadCorpus()): Promise<CaseResult[]> {
  const results: CaseResult[] = [];
  for (const c of cases) {
    const task = CORPUS_TASKS[c.task];
    if (!task) throw new Error(`${c.name}: unknown task ${c.task}`);
    const outcome = await attempt(sandbox, c.reply);
    const handedOn = c.expect === 'result' && outcome.kind === 'further_processing' && outcome.result === task.answer;
    const firstTry: FirstTry =
      outcome.kind === 'final_answer' ? (outcome.answer === task.answer ? 'right' : 'wrong') : outcome.kind === 'further_processing' ? (handedOn ? 'right' : 'wrong') : 'feedback';
    let eventual = firstTry === 'right';
    if (firstTry === 'feedback') {
      const retry = await attempt(sandbox, task.clean);
      eventual = retry.kind === 'final_answer' && retry.answer === task.answer;
    }
    results.push({ name: c.name, expect: c.expect, firstTry, outcome, eventual });
  }
  return results;
}

/** The corpus figures: first-try rate on the replies that carry a meaningful answer, and eventual rate on all. */
export function summarise(results: CaseResult[]): { total: number; meaningful: number; firstTryRight: number; wrong: number; eventual: number } {
  const meaningful = results.filter((r) => r.expect !== 'feedback');
  return {
    total: results.length,
    meaningful: meaningful.length,
    firstTryRight: meaningful.filter((r) => r.firstTry === 'right').length,
    wrong: results.filter((r) => r.firstTry === 'wrong').length,
    eventual: results.filter((r) => r.eventual).length,
  };
}

/** `npm run bench reply-corpus`: the corpus figures as benchmark lines. */
export async function runReplyCorpusBench(): Promise<Figure[]> {
  const { createSandbox } = await import('../src/sandbox/create-sandbox.js');
  const sandbox = createSandbox();
  try {
    const s = summarise(await runCorpus(sandbox));
    const pct = (n: number, of: number) => Math.round((1000 * n) / of) / 10;
    return [
      { bench: 'reply-corpus', name: 'first-try right', value: pct(s.firstTryRight, s.meaningful), unit: '%', note: `${s.firstTryRight}/${s.meaningful} meaningful replies` },
      { bench: 'reply-corpus', name: 'eventually right', value: pct(s.eventual, s.total), unit: '%', note: `${s.eventual}/${s.total} replies, one retry` },
      { bench: 'reply-corpus', name: 'wrong or nonsense passed on', value: s.wrong, unit: 'replies', note: `of ${s.total}` },
    ];
  } finally {
    await sandbox.close();
  }
}

import { describe, expect, it } from 'vitest';
import { decide, MAX_FEEDBACK_CODE_CHARS, MAX_NEWEST_RESULT_CHARS, MAX_OLDER_RESULT_CHARS } from '../../src/agent/decision.js';
import { NO_FEEDBACK_TEXT } from '../../src/model-messages.js';
import { STRATEGY_NAMES, type StrategyName } from '../../src/agent/strategy.js';
import { ScriptedLlm } from '../helpers/scripted-llm.js';
import { catalogueSection, TOOLS } from './fakes.js';

const PERCEPTION = { intent: 'add two numbers', entities: ['2', '3'], tool_hint: 'add', fallback: false };

/** The line that tells each template apart. */
const STRATEGY_LINES: Record<StrategyName, string> = {
  conservative: 'STRATEGY: CONSERVATIVE.',
  'exploratory-parallel': 'STRATEGY: EXPLORATORY, PARALLEL.',
  'exploratory-sequential': 'STRATEGY: EXPLORATORY, SEQUENTIAL.',
};

function decideWith(strategy: StrategyName, extra: Partial<Parameters<typeof decide>[0]> = {}) {
  const llm = new ScriptedLlm({ turns: ['```js\nasync function solve() { return "FINAL_ANSWER: 5"; }\n```'], usage: { promptTokens: 100, completionTokens: 20 } });
  const run = decide({
    llm,
    strategy,
    query: 'What is 2 + 3?',
    step: 2,
    maxSteps: 4,
    catalogue: TOOLS.slice(0, 2),
    memorySummary: 'Earlier: nothing much',
    perception: PERCEPTION,
    maxToolCalls: 7,
    ...extra,
  });
  return { llm, run };
}

describe('decide', () => {
  it.each(STRATEGY_NAMES)('renders the %s template and no other', async (strategy) => {
    const { llm, run } = decideWith(strategy);
    const decision = await run;
    expect(decision.prompt).toContain(STRATEGY_LINES[strategy]);
    for (const other of STRATEGY_NAMES.filter((s) => s !== strategy)) expect(decision.prompt).not.toContain(STRATEGY_LINES[other]);
    expect(llm.requests[0]!.prompt).toBe(decision.prompt);
  });

  it.each(STRATEGY_NAMES)('fills the %s template with tools, task, step k of n, cap, memory, perception and feedback', async (strategy) => {
    const { run } = decideWith(strategy);
    const { prompt } = await run;
    const catalogue = catalogueSection(prompt);
    expect(catalogue).toContain('tools.add({a: number, b: number})');
    expect(catalogue).toContain('tools.multiply(');
    expect(catalogue).not.toContain('search_stored_documents');
    expect(prompt).toContain('What is 2 + 3?');
    expect(prompt).toContain('This is step 2 of 4 (1 used before this one, 2 left after it)');
    expect(prompt).toMatch(/(At most|after) 7 tool calls/);
    expect(prompt).toContain('Earlier: nothing much');
    expect(prompt).toContain('Intent: add two numbers');
    expect(prompt).toContain(NO_FEEDBACK_TEXT);
    expect(prompt).toMatch(/data, never instructions/);
  });

  it.each(STRATEGY_NAMES)('tells the %s model today’s date, time zone and locale from the clock it is given', async (strategy) => {
    const clock = () => new Date('2026-03-02T09:15:00Z');
    const { prompt } = await decideWith(strategy, { clock, userLocale: { timeZone: 'Europe/Paris', locale: 'fr-FR' } }).run;
    expect(prompt).toContain("Today is Monday, 2026-03-02; the local time is 10:15 (time zone Europe/Paris, UTC+01:00); the user's locale is fr-FR.");
    // The date comes before the task, so "last week" in the task reads against it.
    expect(prompt.indexOf('Today is Monday')).toBeLessThan(prompt.indexOf('What is 2 + 3?'));
  });

  it.each(STRATEGY_NAMES)('tells the %s model that JavaScript may compute between calls and never limits it to one call', async (strategy) => {
    const { prompt } = await decideWith(strategy).run;
    expect(prompt).toContain('Between calls, plain JavaScript may compute anything');
    expect(prompt).not.toMatch(/exactly ONE tool call/i);
  });

  it.each(STRATEGY_NAMES)('requires FINAL_ANSWER on the last step of the %s template', async (strategy) => {
    const { prompt } = await decideWith(strategy, { step: 4, maxSteps: 4 }).run;
    expect(prompt).toContain('This is step 4 of 4, the LAST step');
    expect(prompt).toContain('solve() must return "FINAL_ANSWER: <answer>" now');
  });

  it('carries every earlier step\'s result, the newest whole and older ones bounded', async () => {
    const older = 'o'.repeat(MAX_OLDER_RESULT_CHARS + 50);
    const newest = 'n'.repeat(MAX_NEWEST_RESULT_CHARS - 10);
    const { prompt } = await decideWith('conservative', {
      step: 3,
      earlierResults: [
        { step: 1, result: older },
        { step: 2, result: newest },
      ],
    }).run;
    expect(prompt).toMatch(/===== STEP 1 RESULT [0-9a-f]{16} =====/);
    expect(prompt).toContain(`[50 of ${older.length.toLocaleString('en-US')} characters left out]`);
    expect(prompt).not.toContain(older);
    expect(prompt).toMatch(new RegExp(`===== STEP 2 RESULT [0-9a-f]{16} =====\\n${newest}\\n`));
  });

  it('says there are no earlier results on the first step', async () => {
    const { prompt } = await decideWith('conservative', { step: 1 }).run;
    expect(prompt).toContain('None: this is the first step.');
  });

  it('returns the raw answer and the usage', async () => {
    const { run } = decideWith('conservative');
    const decision = await run;
    expect(decision.reply).toBe('```js\nasync function solve() { return "FINAL_ANSWER: 5"; }\n```');
    expect(decision.usage).toEqual({ promptTokens: 100, completionTokens: 20 });
    expect(decision.llm).toMatchObject({ model: 'scripted', promptTokens: 100, completionTokens: 20 });
  });

  it('puts the previous error and the failing code into a retry prompt, truncating long code', async () => {
    const failing = `async function solve() { return tools.add({x: 1}); }\n${'// padding\n'.repeat(1_000)}`;
    const { run } = decideWith('conservative', { feedback: { error: 'runtime: add: missing argument a', reply: failing, logs: ['about to add'] } });
    const { prompt } = await run;
    expect(prompt).toContain('runtime: add: missing argument a');
    expect(prompt).toContain('async function solve() { return tools.add({x: 1}); }');
    expect(prompt).toContain('about to add');
    expect(prompt).toContain(`[truncated: first ${MAX_FEEDBACK_CODE_CHARS} of ${failing.length} characters shown]`);
    expect(prompt).not.toContain(NO_FEEDBACK_TEXT);
  });

  it('passes the LLM failure on: it is not the model’s mistake', async () => {
    const llm = new ScriptedLlm();
    await expect(
      decide({ llm, strategy: 'conservative', query: 'q', step: 1, maxSteps: 1, catalogue: TOOLS, memorySummary: '', perception: PERCEPTION }),
    ).rejects.toThrow(/no scripted turn/);
  });
});

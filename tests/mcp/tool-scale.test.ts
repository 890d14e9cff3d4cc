// Hundreds of tools: past a threshold the prompt holds a short index, and solve() finds tools with mcp.search_tools.
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MultiMcp } from '../../src/mcp/multi-mcp.js';
import type { ToolInfo } from '../../src/mcp/types.js';
import { PROJECT_ROOT } from '../../src/paths.js';
import { renderToolCatalogue } from '../../src/sandbox/catalogue.js';
import { createSandbox } from '../../src/sandbox/create-sandbox.js';
import { describeTool, searchTools } from '../../src/sandbox/tool-search.js';
import { TEST_LIMITS } from '../sandbox/contain.js';
import { runReply } from '../helpers/run-reply.js';

const SERVER = join(PROJECT_ROOT, 'tests', 'fixtures', 'generated-tools-server.mjs');
/** What a person would ask for, worded unlike the tool's name, and the tool that does it. */
const QUESTIONS: Array<[string, string]> = [
  ['sum of two numbers', 'add_numbers'],
  ['product of numbers', 'multiply_numbers'],
  ['reverse a string', 'reverse_text'],
  ['how many words are in this text', 'count_words'],
  ['convert celsius temperature', 'celsius_to_fahrenheit'],
  ['check whether a number is prime', 'is_prime'],
  ['fibonacci', 'fibonacci_number'],
  ['capital letters', 'uppercase_text'],
  ['days between two dates', 'days_between_dates'],
  ['length of a string', 'string_length'],
];

const opened: MultiMcp[] = [];
afterAll(() => Promise.all(opened.map((m) => m.close())));

async function toolsOf(count: number): Promise<ToolInfo[]> {
  const multi = await MultiMcp.start([
    { id: 'many', command: process.execPath, args: [SERVER], cwd: PROJECT_ROOT, env: { CORTEX_TOOL_COUNT: String(count) }, description: 'many tools', capabilities: [] },
  ]);
  opened.push(multi);
  return multi.listTools();
}

describe('a catalogue of 20, 100 and 500 tools', () => {
  const figures: Record<number, { chars: number; top1: number; top3: number }> = {};

  it.each([20, 100, 500])('with %i tools: prompt size and search hits', async (count) => {
    const tools = await toolsOf(count);
    expect(tools).toHaveLength(count);
    const catalogue = renderToolCatalogue(tools);
    let top1 = 0;
    let top3 = 0;
    for (const [question, tool] of QUESTIONS) {
      const names = searchTools(tools, question, 3).map((m) => m.name);
      if (names[0] === tool) top1++;
      if (names.includes(tool)) top3++;
    }
    figures[count] = { chars: catalogue.length, top1, top3 };
    if (count > 40) expect(catalogue).toContain('mcp.search_tools');
    else expect(catalogue).toContain('tools.add_numbers({a: number, b: number})');
    expect(top3).toBe(QUESTIONS.length);
  });

  it('keeps the 500-tool prompt no bigger than the 20-tool one', () => {
    console.log('catalogue figures (tools: chars, search top-1/top-3 of 10):', JSON.stringify(figures));
    expect(figures[500]!.chars).toBeLessThanOrEqual(figures[20]!.chars);
    expect(figures[100]!.chars).toBeLessThanOrEqual(figures[20]!.chars);
  });

  it('lets solve() search, describe and call a tool among 500, through the real sandbox', async () => {
    const multi = opened.at(-1)!;
    const tools = multi.listTools();
    expect(describeTool(tools, 'days_between_dates')).toMatchObject({ signature: 'tools.days_between_dates({from: string, to: string}): Promise<unknown>', read_only: true });
    const sandbox = createSandbox();
    try {
      const code = `async function solve() {
        const [hit] = await mcp.search_tools("convert celsius temperature", 3);
        const about = await mcp.describe_tool(hit.name);
        const value = await tools[hit.name]({ celsius: 100 });
        return "FINAL_ANSWER: " + about.name + " " + value;
      }`;
      const result = await runReply(sandbox, { code, tools, caller: multi, limits: { ...TEST_LIMITS, maxToolCalls: 1, timeoutMs: 15_000 } });
      expect(result).toMatchObject({ ok: true, value: 'FINAL_ANSWER: celsius_to_fahrenheit 212' });
      expect(result.calls.map((c) => c.tool)).toEqual(['celsius_to_fahrenheit']);
    } finally {
      await sandbox.close();
    }
  });
});

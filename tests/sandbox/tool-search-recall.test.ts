// Tool search measured: 70 questions worded unlike the tool names, over the real catalogues of 13 MCP servers (151 tools) plus 390 look-alikes.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MultiMcp } from '../../src/mcp/multi-mcp.js';
import { offeredNames } from '../../src/mcp/offered-names.js';
import type { ToolInfo } from '../../src/mcp/types.js';
import { PROJECT_ROOT } from '../../src/paths.js';
import { searchTools } from '../../src/sandbox/tool-search.js';

const FIXTURES = join(PROJECT_ROOT, 'tests', 'fixtures', 'tool-catalogues');
/** Results a person (or the model) looks at. */
const TOP = 5;
/** Look-alike tools (`list_invoice`, `merge_branch`…) from the generated server, on top of the real ones. */
const LOOK_ALIKES = 390;
/** The bar the issue sets for top-5 recall. */
const MIN_RECALL = 0.95;

type Catalogues = Record<string, Array<{ name: string; description: string; inputSchema: Record<string, unknown> }>>;
const catalogues = JSON.parse(readFileSync(join(FIXTURES, 'catalogues.json'), 'utf8')) as Catalogues;
type Questions = Array<[string, string[]]>;
const { questions, held_out_1: heldOut1, held_out_2: heldOut2 } = JSON.parse(readFileSync(join(FIXTURES, 'questions.json'), 'utf8')) as { questions: Questions; held_out_1: Questions; held_out_2: Questions };

function named(tools: Array<Omit<ToolInfo, 'name'>>): ToolInfo[] {
  const names = offeredNames(tools.map((t) => ({ ...t, name: t.remoteName })));
  return tools.map((t, i) => ({ ...t, name: names[i]! }));
}

const real = named(Object.entries(catalogues).flatMap(([server, tools]) => tools.map((t) => ({ server, remoteName: t.name, description: t.description, inputSchema: t.inputSchema }))));

/** The questions answered in the top `TOP`, and the misses with what came first. */
function recall(tools: ToolInfo[], set: Array<[string, string[]]>): { hits: number; misses: string[] } {
  let hits = 0;
  const misses: string[] = [];
  for (const [question, expected] of set) {
    const found = searchTools(tools, question, TOP).map((m) => `${m.server}.${tools.find((t) => t.name === m.name)!.remoteName}`);
    if (found.some((f) => expected.includes(f))) hits++;
    else misses.push(`"${question}" → ${found.join(', ') || '(nothing)'}`);
  }
  return { hits, misses };
}

describe('tool search over real catalogues', () => {
  let multi: MultiMcp;
  let all: ToolInfo[];

  beforeAll(async () => {
    const server = join(PROJECT_ROOT, 'tests', 'fixtures', 'generated-tools-server.mjs');
    multi = await MultiMcp.start([{ id: 'workspace', command: process.execPath, args: [server], cwd: PROJECT_ROOT, env: { CORTEX_TOOL_COUNT: String(LOOK_ALIKES + 10) }, description: 'workspace', capabilities: [] }]);
    const lookAlikes = multi.listTools().slice(10);
    all = named([...real, ...lookAlikes]);
  });
  afterAll(() => multi.close());

  it(`finds the tool in the top ${TOP} for at least ${MIN_RECALL * 100}% of ${questions.length} questions among 541 tools`, () => {
    expect(real).toHaveLength(151);
    expect(all).toHaveLength(151 + LOOK_ALIKES);
    const onReal = recall(real, questions);
    const onAll = recall(all, questions);
    const held1 = recall(all, heldOut1);
    const held2 = recall(all, heldOut2);
    console.log(
      `top-${TOP} recall: ${onReal.hits}/${questions.length} over ${real.length} real tools, ${onAll.hits}/${questions.length} over ${all.length}; ` +
        `held-out sets over ${all.length}: ${held1.hits}/${heldOut1.length}, ${held2.hits}/${heldOut2.length}`,
    );
    console.log(`misses over ${all.length}:\n${[...onAll.misses, ...held1.misses.map((m) => `held-out 1 ${m}`), ...held2.misses.map((m) => `held-out 2 ${m}`)].join('\n')}`);
    expect(onAll.hits / questions.length).toBeGreaterThanOrEqual(MIN_RECALL);
  });

  it('ranks the browser and the arithmetic tools first for the two questions the issue names', () => {
    const first = (q: string) => searchTools(all, q, 1)[0]?.name;
    expect(first('open a web page in the browser')).toBe('browser_navigate');
    expect(['get-sum', 'add']).toContain(first('add two numbers'));
  });
});
